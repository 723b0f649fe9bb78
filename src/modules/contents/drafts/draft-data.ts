import type { Sql } from '../../../db/sql.js';
import type { TableDef } from '../../tables/table-def.js';
import type { ContentsRow } from '../rows/row.js';
import { draftOf } from './drafts.sql.js';

/*
 * A pending draft (docs/contents.md#drafts-of-published-rows) is stored as column id → value (`contents.draft`): a column renamed
 * since keeps its value, a column deleted since drops out. Callers see column names.
 */

/** Column id → value, from column name → value (names that are no column are left out). */
export function draftToStored(table: TableDef, byName: Record<string, unknown>): Record<string, unknown> {
  const ids = new Map(table.columns.map((c) => [c.name, c.id]));
  return Object.fromEntries(Object.entries(byName).flatMap(([name, value]) => (ids.has(name) ? [[ids.get(name)!, value]] : [])));
}

/** Column name → value of the table's live columns, from the stored form. */
export function draftFromStored(table: TableDef, stored: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(table.columns.filter((c) => Object.hasOwn(stored, c.id)).map((c) => [c.name, stored[c.id]]));
}

/** A row's pending changes by column name, or null when it has no draft. */
export async function readDraft(sql: Sql, table: TableDef, row: ContentsRow): Promise<Record<string, unknown> | null> {
  if (!row.has_draft) return null;
  const [found] = await sql<{ draft: Record<string, unknown> | null }>(draftOf(row.id));
  return found?.draft ? draftFromStored(table, found.draft) : null;
}
