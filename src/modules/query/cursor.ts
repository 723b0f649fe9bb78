/**
 * Keyset cursors (docs/contents.md#list-queries): an opaque base64url JSON `{ f, k, id }` where `k` holds the sort-key
 * values of the last row of a page (the `_k0`, `_k1`, … columns of the compiled select), `id`
 * that row's id and `f` the fingerprint of table + sort + filters + op. A cursor is only
 * accepted with the same fingerprint, so it cannot be replayed against another ordering.
 */
import { createHash } from 'node:crypto';
import { invalidQuery } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { parseInstant } from './coerce.js';
import { fieldIsNullable, fieldKind } from './expressions.js';
import { STATUSES, type CursorPosition, type CursorValue, type FieldRef, type Filter, type ListQuery, type SortKey } from './types.js';

/** Longest cursor string accepted (sort values of long text columns make long cursors). */
export const MAX_CURSOR_LENGTH = 16_384;

/** A field's identity: the same for the same field, whatever its spelling in the query. */
export const fieldId = (f: FieldRef): string =>
  f.source === 'system'
    ? f.name
    : f.source === 'relevance'
      ? '_relevance'
      : f.source === 'related'
        ? `${f.via.map((hop) => `${hop.column.id}${hop.table.rows ? `[${hop.table.rows.key}]` : ''}`).join('>')}>${fieldId(f.field)}`
        : `data.${f.column.id}.${f.locale ?? ''}`;

function filterSignature(f: Filter): unknown[] {
  const base = [fieldId(f.field), f.op];
  if ('isNull' in f) return [...base, f.isNull];
  if ('values' in f) return [...base, f.values];
  return [...base, f.value];
}

/**
 * Hash of what decides the order and the matching set; not `page`, `size` or `fields`, nor
 * `locale` unless a search depends on it.
 */
export function queryFingerprint(tableId: string, sort: SortKey[], filters: Filter[], op: 'and' | 'or', search: string[] = []): string {
  const parts: unknown[] = [tableId, sort.map((k) => [fieldId(k.field), k.direction]), filters.map(filterSignature), op];
  if (search.length > 0) parts.push(search);
  const canonical = JSON.stringify(parts);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** A row of the compiled select: `id` and one `_k<i>` per sort key (extra keys are ignored). */
export type CursorRow = { id: string; [sortKey: `_k${number}`]: unknown };

/** The `nextCursor` for the page whose last returned row is `lastRow`. */
export function encodeCursor(query: Pick<ListQuery, 'sort' | 'fingerprint'>, lastRow: CursorRow): string {
  const k = query.sort.map((_, i): CursorValue => {
    const value = lastRow[`_k${i}` as const];
    if (value === null || value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    throw new Error(`sort key _k${i} of row ${lastRow.id} is not a scalar`);
  });
  return Buffer.from(JSON.stringify({ f: query.fingerprint, k, id: lastRow.id })).toString('base64url');
}

function validValue(field: FieldRef, value: unknown): value is CursorValue {
  if (value === null) return fieldIsNullable(field);
  switch (fieldKind(field)) {
    case 'number':
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'timestamp':
      return typeof value === 'string' && parseInstant(value) !== null;
    case 'uuid':
      return typeof value === 'string' && isUuid(value);
    case 'status':
      return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
    default:
      return typeof value === 'string' && !value.includes('\u0000');
  }
}

/** Decodes `raw` for a query with this sort and fingerprint; anything off is 400 INVALID_QUERY. */
export function decodeCursor(raw: string, expected: { sort: SortKey[]; fingerprint: string }): CursorPosition {
  const malformed = () => invalidQuery('cursor: malformed; use pagination.nextCursor of the previous page as is');
  if (raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw malformed();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof payload !== 'object' || payload === null) throw malformed();
  const { f, k, id } = payload as { f?: unknown; k?: unknown; id?: unknown };
  if (typeof f !== 'string' || typeof id !== 'string' || !isUuid(id) || !Array.isArray(k)) throw malformed();
  if (f !== expected.fingerprint) {
    throw invalidQuery('cursor: was issued for a different sort, filter or op; keep them unchanged while paging');
  }
  if (k.length !== expected.sort.length) throw malformed();
  const values: CursorValue[] = [];
  expected.sort.forEach((key, i) => {
    const value: unknown = k[i];
    if (!validValue(key.field, value)) throw malformed();
    values.push(value);
  });
  return { values, id: id.toLowerCase() };
}
