import type { EntityManager } from '@mikro-orm/postgresql';
import { checkValue } from '../contents/value-rules.js';
import { columnExpression } from '../contents/query/index.js';
import { isLocalized, type ColumnDef } from '../tables/table-def.js';

/** How many offending row ids a 409 names (SPEC §6: "the first offending row ids"). */
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
  /** For `required` on a localized column: the locale `required` applies to (SPEC §7). */
  defaultLocale?: string,
): Promise<string[]> {
  if (rule === 'required') {
    if (!column.settings.required) return [];
    const localized = isLocalized(column) && defaultLocale !== undefined;
    const rows = await em.execute<{ id: string }[]>(
      `select id from contents where table_id = ? and (not jsonb_exists(data, ?)${localized ? ' or not jsonb_exists(data->?::text, ?)' : ''})
        order by id limit ?`,
      localized ? [tableId, column.name, column.name, defaultLocale, SHOWN] : [tableId, column.name, SHOWN],
    );
    return rows.map((r) => r.id);
  }
  if (rule === 'unique') {
    // A localized column is unique per locale (SPEC §6).
    const expressions = isLocalized(column) ? locales.map((l) => columnExpression(column, l)) : [columnExpression(column)];
    const ids: string[] = [];
    for (const expression of expressions) {
      const rows = await em.execute<{ id: string }[]>(
        `select id from contents where table_id = ? and ${expression} in (
           select ${expression} from contents where table_id = ? and ${expression} is not null group by 1 having count(*) > 1)
         order by ${expression}, id limit ?`,
        [tableId, tableId, SHOWN],
      );
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
    const rows = await em.execute<{ id: string; value: unknown }[]>(
      'select id, data->? as value from contents where table_id = ? and jsonb_exists(data, ?) and id > ? order by id limit ?',
      [column.name, tableId, column.name, after, BATCH],
    );
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
