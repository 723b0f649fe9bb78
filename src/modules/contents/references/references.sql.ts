import type { SqlQuery } from '../../../db/sql.js';
import { isUuid } from '../../../shared/ids.js';
import { literal } from '../../query/index.js';
import { CONTENTS_COLUMNS, ROW_FIELDS, type ContentsRow } from '../rows/row.js';
import type { Actor } from '../revisions/actions.js';
import { reviseRows } from '../revisions/revisions.sql.js';

/*
 * The statements of referential integrity (docs/contents.md#references): which reference columns point at a
 * table, which rows hold given ids in such a column, and what a delete does to them. A single
 * reference is matched by `(data->>'column')` and a multiple one by jsonpath on
 * `(data->'column')`: the very expressions of the column's btree and GIN indexes
 * (query/expressions.ts), so each statement is an index lookup.
 */

export type OnDelete = 'setNull' | 'restrict' | 'cascade';

/** A live reference column that points at a table. */
export interface ReferencingColumn {
  tableId: string;
  tableKey: string;
  column: string;
  multiple: boolean;
  onDelete: OnDelete;
}

/** Every live reference column of the project whose `settings.table` is `tableId`. */
export const referencingColumnsQuery = (projectId: string, tableId: string): SqlQuery => ({
  name: 'contents.references.columns',
  text: `select t.id as "tableId", t.key as "tableKey", c.name as "column",
                coalesce((c.settings->>'multiple')::boolean, false) as multiple,
                coalesce(c.settings->>'onDelete', 'setNull') as "onDelete"
           from content_column c join content_table t on t.id = c.table_id
          where t.project_id = $1 and t.deleted_at is null and c.deleted_at is null
            and c.type = 'reference' and c.settings->>'table' = $2
          order by t.id, c.position`,
  values: [projectId, tableId],
});

/**
 * `$[*] ? (@ == "id" || ...)`: any element equal to one of the ids. The ids are UUIDs (checked
 * here), so they are safe inside the jsonpath text; GIN `jsonb_path_ops` serves `@?`.
 */
function anyElement(ids: string[]): string {
  if (!ids.every(isUuid)) throw new Error('reference ids must be UUIDs');
  return `$[*] ? (${ids.map((id) => `@ == "${id.toLowerCase()}"`).join(' || ')})`;
}

/** The condition "the row's `column` holds one of the ids", with its parameter at `$n`. */
function holds(ref: ReferencingColumn, n: number): string {
  const name = literal(ref.column);
  return ref.multiple ? `(data->${name}) @? $${n}::jsonpath` : `(data->>${name}) = any($${n}::text[])`;
}

const idsParam = (ref: ReferencingColumn, ids: string[]) => (ref.multiple ? anyElement(ids) : ids);

/** Up to `limit` ids of rows whose `column` holds one of the ids. */
export const referencingRowsQuery = (ref: ReferencingColumn, ids: string[], limit: number): SqlQuery => ({
  text: `select id from contents where table_id = $1 and ${holds(ref, 2)} order by id limit $3`,
  values: [ref.tableId, idsParam(ref, ids), limit],
});

/**
 * How many rows hold the id in `column`, for each column (`referrers`), among the rows the caller
 * sees of each referencing table (`visible[i]`, a RowScope condition; null: every row).
 */
export const referrerCountsQuery = (refs: ReferencingColumn[], id: string, visible: (string | null)[]): SqlQuery => ({
  text: refs
    .map(
      (ref, i) =>
        `select ${i} as i, count(*)::int as count from contents
          where table_id = $${2 * i + 1} and ${holds(ref, 2 * i + 2)}${visible[i] ? ` and (${visible[i]})` : ''}`,
    )
    .join(' union all '),
  values: refs.flatMap((ref) => [ref.tableId, idsParam(ref, [id])]),
});

/** A row whose references were cleared, with the column's value and `updated_at` before. */
export type ClearedRow = ContentsRow & { previous_value: unknown; previous_updated_at: string };

/**
 * `setNull`: the ids leave `column` (a single value is removed, an array loses them); each
 * changed row counts its version up and records an `updated` revision by `actor`.
 */
export function clearReferencesQuery(ref: ReferencingColumn, ids: string[], actor: Actor | null): SqlQuery {
  const name = literal(ref.column);
  const set = ref.multiple
    ? `jsonb_set(data, array[${name}], coalesce((select jsonb_agg(e order by n) from jsonb_array_elements(data->${name}) with ordinality as a(e, n)
                                               where not (e #>> '{}') = any($3::text[])), '[]'::jsonb))`
    : `data - ${name}`;
  const actorAt = ref.multiple ? 4 : 3;
  return {
    // `old` keeps what the update replaces, for the update's event (DomainEvent.previous).
    text: `with old as (
             select id as old_id, data->${name} as previous_value, updated_at as previous_updated_at
               from contents where table_id = $1 and ${holds(ref, 2)} for update
           ), cleared as (
             update contents set data = ${set}, updated_at = now(), version = version + 1
               from old where contents.id = old.old_id
             returning ${CONTENTS_COLUMNS}, old.previous_value, old.previous_updated_at
           ), revised as (${reviseRows('cleared', `'updated'`, `$${actorAt}`, `$${actorAt + 1}::uuid`)})
           select ${ROW_FIELDS}, previous_value, previous_updated_at from cleared`,
    values: [ref.tableId, idsParam(ref, ids), ...(ref.multiple ? [ids] : []), actor?.type ?? null, actor?.id ?? null],
  };
}

/** `cascade`: the rows that hold the ids are deleted. */
export const deleteReferencingQuery = (ref: ReferencingColumn, ids: string[]): SqlQuery => ({
  text: `delete from contents where table_id = $1 and ${holds(ref, 2)} returning ${CONTENTS_COLUMNS}`,
  values: [ref.tableId, idsParam(ref, ids)],
});
