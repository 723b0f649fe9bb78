import type { SqlQuery } from '../../db/sql.js';

/** A row's system fields and data, as a write is about to leave it (or found it). */
export interface RowState {
  id: string;
  table_id: string;
  status: string;
  slug: string | null;
  data: Record<string, unknown>;
  created_at: unknown;
  updated_at: unknown;
  published_at: unknown;
  publish_at: unknown;
}

/**
 * Whether each of `rows` satisfies each of `conditions` (RowScope conditions on an unqualified
 * `contents` row): the rows are given as values under the name `contents`, so the conditions
 * read them as they would read a stored row, before anything is written. Answers one row per
 * given row, `c0`, `c1`, … per condition.
 */
export const conditionsOnRows = (rows: RowState[], conditions: string[]): SqlQuery => ({
  text: `select ${conditions.map((c, i) => `coalesce((${c}), false) as c${i}`).join(', ')}
           from (select r.* from jsonb_to_recordset($1::jsonb) as r(
                   n int, id uuid, table_id uuid, status text, slug text, data jsonb,
                   created_at timestamptz, updated_at timestamptz, published_at timestamptz, publish_at timestamptz)) as contents
          order by contents.n`,
  values: [JSON.stringify(rows.map((row, n) => ({ n, ...row })))],
});
