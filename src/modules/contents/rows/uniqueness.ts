import type { Sql } from '../../../db/sql.js';
import { slugColumnOf, type TableDef } from '../../tables/table-def.js';
import { slugsLike } from './rows.sql.js';

/**
 * The `data.<column>` a unique violation is about, from the name of the index PostgreSQL
 * reports: `contents_table_slug` for the slug column, `c_<column id>_u...` for unique columns.
 * Null when the error is not a unique violation of contents.
 */
export function uniqueViolationField(table: TableDef, error: unknown): string | null {
  const pg = (error as { cause?: unknown }).cause ?? error;
  const { code, constraint } = pg as { code?: string; constraint?: string };
  if (code !== '23505' || !constraint) return null;
  if (constraint === 'contents_table_slug') {
    const slug = slugColumnOf(table);
    return slug ? `data.${slug.name}` : 'slug';
  }
  const column = table.columns.find((c) => constraint.startsWith(`c_${c.id.replace(/-/g, '')}_u`));
  return column ? `data.${column.name}` : null;
}

/**
 * The `data.<column>` a value too large for the database is about (SQLSTATE 54000, e.g. "index
 * row size 4032 exceeds btree version 4 maximum 2704 for index "c_…""), from the index the
 * message names; `data` when it names none. Null for any other error. String columns' indexes
 * hold bounded keys, so this is a safety net: such a value is the client's 422, never a 500.
 */
export function storageLimitField(table: TableDef, error: unknown): string | null {
  const pg = (error as { cause?: unknown }).cause ?? error;
  const { code, message } = pg as { code?: string; message?: string };
  if (code !== '54000') return null;
  const index = /index "([^"]+)"/.exec(message ?? '')?.[1];
  const column = index ? table.columns.find((c) => index.startsWith(`c_${c.id.replace(/-/g, '')}_`)) : undefined;
  return column ? `data.${column.name}` : 'data';
}

/** `base` when it is not `taken`, else `base-N` with the smallest N ≥ 2 above every taken suffix (docs/contents.md#tables-and-columns). */
export function freeSlug(base: string, taken: Iterable<string>): string {
  let baseTaken = false;
  let max = 1;
  for (const slug of taken) {
    if (slug === base) baseTaken = true;
    else if (slug.startsWith(`${base}-`)) {
      const n = Number(slug.slice(base.length + 1));
      if (Number.isInteger(n) && n > max) max = n;
    }
  }
  return baseTaken ? `${base}-${max + 1}` : base;
}

/** The free slug for `base` among the table's stored rows (freeSlug). */
export async function nextFreeSlug(sql: Sql, tableId: string, base: string): Promise<string> {
  const taken = await sql<{ slug: string }>(slugsLike(tableId, base));
  return freeSlug(base, taken.map((t) => t.slug));
}
