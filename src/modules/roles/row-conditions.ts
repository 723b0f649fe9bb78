import type { Sql } from '../../db/sql.js';
import { conditionsOnRows, type RowState } from './write-rules.sql.js';

/** Whether row number `row` of the rows asked about satisfies `condition`. */
export type Holds = (row: number, condition: string) => boolean;

/**
 * Whether each of `rows` satisfies each of `conditions` (RowScope conditions, told on the rows as
 * given, before anything is written), in one query; none when either list is empty.
 */
export async function conditionsOn(sql: Sql, rows: RowState[], conditions: string[]): Promise<Holds> {
  if (rows.length === 0 || conditions.length === 0) return () => false;
  const answers = await sql<Record<string, boolean>>(conditionsOnRows(rows, conditions));
  const column = new Map(conditions.map((condition, i) => [condition, `c${i}`]));
  return (row, condition) => answers[row]?.[column.get(condition) ?? ''] === true;
}
