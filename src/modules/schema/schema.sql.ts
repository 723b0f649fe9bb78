import type { SqlQuery } from '../../db/sql.js';

/*
 * The statements of schema snapshots and plans. Column names travel as parameters cast to text
 * (`jsonb_exists`, `data->$n::text`), never inside the statement text.
 */

/** One schema apply per project at a time (a transaction-scoped advisory lock). */
export const lockProjectSchema = (projectId: string): SqlQuery => ({
  text: 'select pg_advisory_xact_lock(hashtextextended($1, 0))',
  values: [`schema:${projectId}`],
});

export const projectTables = (projectId: string): SqlQuery => ({
  text: `select id, key, name, description, default_status, settings from content_table
          where project_id = $1 and deleted_at is null`,
  values: [projectId],
});

/** The live columns of the project's live tables, in position order. */
export const projectColumns = (projectId: string): SqlQuery => ({
  text: `select c.id, c.table_id, c.name, c.label, c.type, c.settings from content_column c
           join content_table t on t.id = c.table_id
          where t.project_id = $1 and t.deleted_at is null and c.deleted_at is null
          order by c.table_id, c.position, c.id`,
  values: [projectId],
});

export const projectRoles = (projectId: string): SqlQuery => ({
  text: 'select id, name, description, rules from role where project_id = $1',
  values: [projectId],
});

export const countRows = (tableId: string): SqlQuery => ({
  text: 'select count(*)::int as n from contents where table_id = $1',
  values: [tableId],
});

/** Rows holding a non-empty value of column `name` (not null, "", [] or {}). */
export const countFilled = (tableId: string, name: string): SqlQuery => ({
  text: `select count(*)::int as n from contents
          where table_id = $1 and jsonb_exists(data, $2::text)
            and data->$2::text not in ('null'::jsonb, '""'::jsonb, '[]'::jsonb, '{}'::jsonb)`,
  values: [tableId, name],
});

/** The first rows of a table, in id order (the rows a default value would make duplicates of). */
export const firstRows = (tableId: string, shown: number): SqlQuery => ({
  text: 'select id from contents where table_id = $1 order by id limit $2',
  values: [tableId, shown],
});

/**
 * The next batch of values of column `name`, in id order after `after`; `lock`: the rows stay
 * locked until the transaction ends, so that a concurrent write waits for the converted value
 * instead of being overwritten by it.
 */
export const valuesAfter = (tableId: string, name: string, after: string, batch: number, lock: boolean): SqlQuery => ({
  text: `select id, data->$1::text as value from contents
          where table_id = $2 and jsonb_exists(data, $1::text) and id > $3 order by id limit $4${lock ? ' for update' : ''}`,
  values: [name, tableId, after, batch],
});

/** Writes converted values of column `name` (JSON texts; `null` removes the value). */
export const writeValues = (tableId: string, name: string, ids: string[], values: string[]): SqlQuery => ({
  text: `update contents c set data = case when v.value = 'null'::jsonb then c.data - $1::text else jsonb_set(c.data, array[$1::text], v.value) end
           from unnest($3::uuid[], $4::jsonb[]) as v(id, value)
          where c.table_id = $2 and c.id = v.id`,
  values: [name, tableId, ids, values],
});

/** Sets the positions of a table's columns (ids in their new order, from 1). */
export const setPositions = (tableId: string, ids: string[]): SqlQuery => ({
  text: `update content_column c set position = v.position, updated_at = now()
           from unnest($2::uuid[]) with ordinality as v(id, position)
          where c.table_id = $1 and c.id = v.id`,
  values: [tableId, ids],
});

/**
 * Writes to `contents` (and `select … for update` of its rows) wait until the apply commits;
 * plain reads go on (EXCLUSIVE conflicts with every lock but ACCESS SHARE). Taken before the
 * apply locks any row: a writer holding a row lock would otherwise wait for the apply's index
 * build while the apply waits for that row (a deadlock).
 */
export const lockContentsWrites = (): SqlQuery => ({ text: 'lock table contents in exclusive mode', values: [] });
