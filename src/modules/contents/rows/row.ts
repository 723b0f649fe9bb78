import { isDeepStrictEqual } from 'node:util';
import type { DomainEvent, PreviousFields } from '../../events/vocabulary.js';
import type { ColumnDef, TableDef } from '../../tables/table-def.js';
import { isLocalized } from '../../tables/table-def.js';
import type { ContentStatus } from '../../tables/table.entity.js';
import type { ContentsOutput } from './rows.schema.js';
import type { Actor } from '../revisions/actions.js';

/** Timestamps arrive as ISO strings from the plain pool (see db/pool.ts), as Date elsewhere. */
type Timestamp = Date | string;

/** A `contents` row as selected by this module (`select *`-like, snake_case). */
export interface ContentsRow {
  id: string;
  table_id: string;
  status: ContentStatus;
  slug: string | null;
  data: Record<string, unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
  published_at: Timestamp | null;
  publish_at: Timestamp | null;
  /** The row's revision number: its newest revision's version, 1 when created (docs/contents.md#concurrent-edits). */
  version: number;
  /** Whether the row has a pending draft (docs/contents.md#drafts-of-published-rows); the draft itself is read only when needed. */
  has_draft?: boolean;
}

/** A row to create, with the events it emits (built before the insert: every value is known). */
export interface NewRow {
  row: ContentsRow;
  projectId: string;
  events: DomainEvent[];
  /** Who creates it, for its first revision. */
  actor: Actor | null;
}

export const toDate = (t: Timestamp): Date => (t instanceof Date ? t : new Date(t));
const iso = (t: Timestamp | null): string | null => (t === null ? null : typeof t === 'string' ? t : t.toISOString());

/** A row's fields selected from `contents` (or returned by a write of it). */
export const CONTENTS_COLUMNS = 'id, table_id, status, slug, data, created_at, updated_at, published_at, publish_at, version, draft is not null as has_draft';
/** The same fields selected from a CTE whose rows were returned with CONTENTS_COLUMNS. */
export const ROW_FIELDS = 'id, table_id, status, slug, data, created_at, updated_at, published_at, publish_at, version, has_draft';

/** Localized columns as plain values in `locale`, falling back to the default locale (docs/contents.md#contents). */
function localize(columns: ColumnDef[], data: Record<string, unknown>, locale: string, defaultLocale: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  for (const column of columns) {
    if (!isLocalized(column) || !(column.name in data)) continue;
    const value = data[column.name] as Record<string, unknown> | null;
    out[column.name] = value?.[locale] ?? value?.[defaultLocale] ?? null;
  }
  return out;
}

/** Drops values of deleted-but-not-yet-purged columns. */
export function visibleData(table: TableDef, data: Record<string, unknown>): Record<string, unknown> {
  if (table.hiddenKeys.length === 0) return data;
  const out = { ...data };
  for (const key of table.hiddenKeys) delete out[key];
  return out;
}

/**
 * The wire object of a row. `hideDrafts` leaves `hasDraft` out: it is shown only to callers that
 * may see drafts (docs/contents.md#drafts-of-published-rows).
 */
export function toContentsOutput(
  table: TableDef,
  row: ContentsRow,
  options: { locale?: string; defaultLocale?: string; hideDrafts?: boolean } = {},
): ContentsOutput {
  let data = visibleData(table, row.data);
  if (options.locale && options.defaultLocale) data = localize(table.columns, data, options.locale, options.defaultLocale);
  return {
    id: row.id,
    slug: row.slug,
    status: row.status,
    data,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    publishedAt: iso(row.published_at),
    publishAt: iso(row.publish_at),
    version: row.version,
    ...(options.hideDrafts ? {} : { hasDraft: row.has_draft ?? false }),
  };
}

/** The system fields an update may change, by their wire names. */
const CHANGING_FIELDS = ['slug', 'status', 'updatedAt', 'publishedAt', 'publishAt'] as const;

/**
 * What an update changed, as it was before (`DomainEvent.previous`): the system fields and the
 * columns whose values differ between the wire objects `before` and `after`.
 */
export function previousFields(before: ContentsOutput, after: ContentsOutput): PreviousFields {
  const previous: PreviousFields = {};
  for (const field of CHANGING_FIELDS) if (before[field] !== after[field]) previous[field] = before[field];
  const data: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before.data), ...Object.keys(after.data)])) {
    if (!isDeepStrictEqual(before.data[key] ?? null, after.data[key] ?? null)) data[key] = before.data[key] ?? null;
  }
  if (Object.keys(data).length > 0) previous.data = data;
  return previous;
}
