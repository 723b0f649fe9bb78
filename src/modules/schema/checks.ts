import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../db/sql.js';
import type { ErrorDetail } from '../../errors/app-error.js';
import { findViolations } from '../columns/column-violations.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import { isLocalized, type ColumnDef } from '../tables/table-def.js';
import { convertValue, touchesValues } from './conversions.js';
import type { PlannedChange } from './plan.js';
import type { SnapshotColumn } from './schema.schema.js';
import { countFilled, countRows, firstRows, valuesAfter } from './schema.sql.js';
import type { CurrentSchema } from './snapshot.js';

/**
 * The stored rows against a plan (docs/environments.md#checks), before anything changes: the
 * rows each destructive change concerns, and the rows a new constraint refuses (a required
 * column without values, a unique one with duplicates, values that do not convert to a new
 * type), at most SHOWN of them per column.
 */

const SHOWN = 10;
const BATCH = 5000;
const NIL = '00000000-0000-0000-0000-000000000000';

export const defOf = (c: SnapshotColumn, id = '', name = c.name): ColumnDef => ({ id, name, type: c.type, settings: c.settings as ColumnDef['settings'] });

export interface ValueScan {
  /** Rows whose value does not convert, with the first reason. */
  refused: string[];
  reason?: string;
  /** Rows whose value converts with a loss. */
  lossy: number;
}

/**
 * Walks the stored values of a column changing from `from` to `to` (both under the stored
 * name), in id order and in batches; `write` receives each batch's converted values (the
 * rows then stay locked until the transaction ends).
 */
export async function scanValues(
  em: EntityManager,
  tableId: string,
  from: ColumnDef,
  to: ColumnDef,
  defaultLocale: string,
  write?: (ids: string[], values: string[]) => Promise<void>,
): Promise<ValueScan> {
  const scan: ValueScan = { refused: [], lossy: 0 };
  let after = NIL;
  for (;;) {
    const rows = await runSql<{ id: string; value: unknown }>(em, valuesAfter(tableId, from.name, after, BATCH, write !== undefined));
    const ids: string[] = [];
    const values: string[] = [];
    for (const row of rows) {
      const converted = convertValue(from, to, row.value, defaultLocale);
      if (!converted.ok) {
        scan.reason ??= converted.message;
        if (scan.refused.length < SHOWN) scan.refused.push(row.id);
        continue;
      }
      if (converted.lossy) scan.lossy++;
      const text = JSON.stringify(converted.value);
      if (text !== JSON.stringify(row.value)) {
        ids.push(row.id);
        values.push(text);
      }
    }
    if (write && ids.length > 0) await write(ids, values);
    if (rows.length < BATCH) return scan;
    after = rows[rows.length - 1].id;
  }
}

const rowsText = (ids: string[]) => ids.join(', ');

/** Fills in row counts and `destructive`, and answers the 422 details of the stored rows. */
export async function checkRows(em: EntityManager, project: ProjectInfo, current: CurrentSchema, changes: PlannedChange[]): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  for (const change of changes) {
    const tableId = change.table !== undefined ? current.tableIds.get(change.table) : undefined;
    if (!tableId) continue; // a new table, or a role: no rows
    const field = `tables.${change.table}.columns.${change.column}`;
    if (change.op === 'dropTable') {
      change.rows = (await runSql<{ n: number }>(em, countRows(tableId)))[0].n;
    } else if (change.op === 'dropColumn') {
      change.rows = (await runSql<{ n: number }>(em, countFilled(tableId, change.current!.name)))[0].n;
    } else if (change.op === 'addColumn') {
      const def = defOf(change.target!);
      const { required, unique, defaultValue } = def.settings;
      const hasDefault = defaultValue !== undefined && defaultValue !== null;
      if (required && !hasDefault) {
        const ids = await findViolations(em, tableId, def, 'required', project.locales, project.defaultLocale);
        if (ids.length > 0) details.push({ field, message: `required: rows without a value: ${rowsText(ids)}` });
      }
      if (unique) {
        const ids = hasDefault
          ? (await runSql<{ id: string }>(em, firstRows(tableId, SHOWN))).map((r) => r.id)
          : await findViolations(em, tableId, def, 'unique', project.locales);
        if (ids.length > 1 || (!hasDefault && ids.length > 0)) details.push({ field, message: `unique: rows that would share a value: ${rowsText(ids)}` });
      }
    } else if (change.op === 'updateColumn') {
      details.push(...(await checkColumnUpdate(em, project, tableId, change, field)));
    }
  }
  return details;
}

async function checkColumnUpdate(em: EntityManager, project: ProjectInfo, tableId: string, change: PlannedChange, field: string): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  const was = change.current!;
  const id = '';
  // The values are still stored under the current name.
  const from = defOf(was, id);
  const to = defOf(change.target!, id, was.name);
  if (touchesValues(from, to)) {
    const scan = await scanValues(em, tableId, from, to, project.defaultLocale);
    if (scan.refused.length > 0) details.push({ field, message: `type: rows whose value does not fit (${scan.reason}): ${rowsText(scan.refused)}` });
    if (scan.lossy > 0) Object.assign(change, { destructive: true, rows: scan.lossy });
  }
  const typeChanged = from.type !== to.type || isLocalized(from) !== isLocalized(to);
  if (to.settings.required && (!from.settings.required || typeChanged)) {
    const ids = await findViolations(em, tableId, to, 'required', project.locales, project.defaultLocale);
    if (ids.length > 0) details.push({ field, message: `required: rows without a value: ${rowsText(ids)}` });
  }
  // After a type change the values compare in their new form: the index build tells.
  if (to.settings.unique && !from.settings.unique && !typeChanged) {
    const ids = await findViolations(em, tableId, to, 'unique', project.locales);
    if (ids.length > 0) details.push({ field, message: `unique: rows sharing a value: ${rowsText(ids)}` });
  }
  return details;
}
