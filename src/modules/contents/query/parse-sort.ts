import { invalidQuery } from '../../../errors/app-error.js';
import type { TableDef } from '../../tables/table-def.js';
import { isSortableColumn } from './expressions.js';
import { describeField, parseJsonArray, resolveFieldRef } from './parse-common.js';
import type { ProjectLocales, SortKey } from './types.js';

export const MAX_SORT_KEYS = 5;
export const DEFAULT_SORT: readonly SortKey[] = [{ field: { source: 'system', name: 'createdAt' }, direction: 'desc' }];

const sameField = (a: SortKey, b: SortKey) =>
  a.field.source === 'system'
    ? b.field.source === 'system' && a.field.name === b.field.name
    : b.field.source === 'column' && a.field.column.id === b.field.column.id && a.field.locale === b.field.locale;

/**
 * `sort`: a JSON array of `{ i, o?, l? }` (SPEC §7); `o` is `asc` (default) or `desc`, in any
 * case. An empty array means the default `createdAt desc`. json and multiple columns cannot be
 * sort keys; the same key twice is refused.
 */
export function parseSort(raw: string | undefined, table: TableDef, project: ProjectLocales): SortKey[] {
  const items = parseJsonArray('sort', raw, ['i', 'o', 'l']);
  if (items.length > MAX_SORT_KEYS) throw invalidQuery(`sort: at most ${MAX_SORT_KEYS} sort keys`);
  const keys: SortKey[] = [];
  items.forEach((item, index) => {
    const part = `sort[${index}]`;
    const field = resolveFieldRef(part, item, table, project);
    if (field.source === 'column' && !isSortableColumn(field.column)) {
      throw invalidQuery(`${part}.i: cannot sort by ${describeField(field)}`);
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
  return keys.length > 0 ? keys : [...DEFAULT_SORT];
}
