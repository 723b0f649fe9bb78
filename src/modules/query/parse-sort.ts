import { invalidQuery } from '../../errors/app-error.js';
import { isMultiple, type TableDef } from '../tables/table-def.js';
import { fieldId } from './cursor.js';
import { isSortableColumn } from './expressions.js';
import { describeField, parseJsonArray, resolveFieldRef } from './parse-common.js';
import type { FieldRef, ParseContext, SortKey } from './types.js';

const RELEVANCE = '_relevance';

function relevanceField(part: string, item: { l?: unknown }, searching: boolean): FieldRef {
  if (!searching) throw invalidQuery(`${part}.i: "${RELEVANCE}" sorts search results; give search too`);
  if (item.l !== undefined) throw invalidQuery(`${part}.l: "${RELEVANCE}" is not localized`);
  return { source: 'relevance' };
}

export const MAX_SORT_KEYS = 5;
export const DEFAULT_SORT: readonly SortKey[] = [{ field: { source: 'system', name: 'createdAt' }, direction: 'desc' }];

const sameField = (a: SortKey, b: SortKey) => fieldId(a.field) === fieldId(b.field);

/** The sort by relevance of a search without an explicit sort (then by id, descending). */
export const RELEVANCE_SORT: readonly SortKey[] = [{ field: { source: 'relevance' }, direction: 'desc' }];

/**
 * `sort`: a JSON array of `{ i, o?, l? }` (docs/contents.md#list-queries); `o` is `asc` (default) or `desc`, in any
 * case. An empty array means the default: `createdAt desc`, or relevance with a search. json and
 * multiple columns cannot be sort keys; the same key twice is refused. `_relevance` is a key only
 * with a search (docs/contents.md#search).
 */
export function parseSort(raw: string | undefined, table: TableDef, project: ParseContext, searching = false): SortKey[] {
  const items = parseJsonArray('sort', raw, ['i', 'o', 'l']);
  if (items.length > MAX_SORT_KEYS) throw invalidQuery(`sort: at most ${MAX_SORT_KEYS} sort keys`);
  const keys: SortKey[] = [];
  items.forEach((item, index) => {
    const part = `sort[${index}]`;
    const field: FieldRef = item.i === RELEVANCE ? relevanceField(part, item, searching) : resolveFieldRef(part, item, table, project);
    const own = field.source === 'related' ? field.field : field;
    if (own.source === 'column' && !isSortableColumn(own.column)) throw invalidQuery(`${part}.i: cannot sort by ${describeField(field)}`);
    if (field.source === 'related' && field.via.some((hop) => isMultiple(hop.column))) {
      throw invalidQuery(`${part}.i: cannot sort through a multiple reference column (${describeField(field)})`);
    }
    const o = item.o ?? 'asc';
    const direction = typeof o === 'string' ? o.toLowerCase() : null;
    if (direction !== 'asc' && direction !== 'desc') {
      throw invalidQuery(`${part}.o: must be "asc" or "desc", got ${JSON.stringify(o)?.slice(0, 100)}`);
    }
    const key: SortKey = { field, direction };
    if (keys.some((k) => sameField(k, key))) throw invalidQuery(`${part}.i: ${describeField(field)} is already a sort key`);
    keys.push(key);
  });
  return keys.length > 0 ? keys : [...(searching ? RELEVANCE_SORT : DEFAULT_SORT)];
}
