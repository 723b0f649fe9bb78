import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../db/sql.js';
import { checkValue } from '../contents/index.js';
import { columnExpression } from '../query/index.js';
import { isLocalized, type ColumnDef } from '../tables/table-def.js';
import { rowsMissing, rowsSharingValue, valuesAfter } from './column.sql.js';

/** How many offending row ids a 409 names (docs/contents.md#tables-and-columns: "the first offending row ids"). */
const SHOWN = 10;
const BATCH = 5000;

/**
 * The first rows of a table that a column definition would not accept:
 * - `unique`: rows sharing a value;
 * - `required`: rows without a value;
 * - `type`: rows whose value fails the column's type and settings.
 */
export async function findViolations(
  em: EntityManager,
  tableId: string,
  column: ColumnDef,
  rule: 'unique' | 'required' | 'type',
  locales: string[],
  /** For `required` on a localized column: the locale `required` applies to (docs/contents.md#contents). */
  defaultLocale?: string,
): Promise<string[]> {
  if (rule === 'required') {
    if (!column.settings.required) return [];
    const localized = isLocalized(column) && defaultLocale !== undefined;
    const rows = await runSql<{ id: string }>(em, rowsMissing(tableId, column.name, SHOWN, localized ? defaultLocale : undefined));
    return rows.map((r) => r.id);
  }
  if (rule === 'unique') {
    // A localized column is unique per locale (docs/contents.md#tables-and-columns).
    const expressions = isLocalized(column) ? locales.map((l) => columnExpression(column, l)) : [columnExpression(column)];
    const ids: string[] = [];
    for (const expression of expressions) {
      const rows = await runSql<{ id: string }>(em, rowsSharingValue(tableId, expression, SHOWN));
      ids.push(...rows.map((r) => r.id).filter((id) => !ids.includes(id)));
    }
    return ids.slice(0, SHOWN);
  }
  return findTypeViolations(em, tableId, column);
}

/** Walks the rows that hold a value, in id order and in batches, and checks each value. */
async function findTypeViolations(em: EntityManager, tableId: string, column: ColumnDef): Promise<string[]> {
  const offending: string[] = [];
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await runSql<{ id: string; value: unknown }>(em, valuesAfter(tableId, column.name, after, BATCH));
    for (const row of rows) {
      const values =
        isLocalized(column) && typeof row.value === 'object' && row.value !== null && !Array.isArray(row.value)
          ? Object.values(row.value)
          : [row.value];
      if (values.some((v) => !checkValue(column, v).ok)) offending.push(row.id);
      if (offending.length >= SHOWN) return offending;
    }
    if (rows.length < BATCH) return offending;
    after = rows[rows.length - 1].id;
  }
}
