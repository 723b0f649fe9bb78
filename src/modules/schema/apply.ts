import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { runSql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { createColumn, deleteColumn, updateColumn } from '../columns/column.service.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import type { RuleContext } from '../roles/role-rules.js';
import { validateRules } from '../roles/role-rules.js';
import { createRole, deleteRole, updateRole } from '../roles/role.service.js';
import type { ColumnDef, TableDef } from '../tables/table-def.js';
import { createTable, deleteTable, findTable, updateTable } from '../tables/table.service.js';
import { columnsOfTable, liveTable } from '../tables/table.sql.js';
import { defOf, scanValues } from './checks.js';
import { touchesValues } from './conversions.js';
import type { PlannedChange } from './plan.js';
import type { Snapshot } from './schema.schema.js';
import { lockContentsWrites, setPositions, writeValues } from './schema.sql.js';
import { columnKey, type CurrentSchema } from './snapshot.js';

/**
 * Carries out a checked plan inside the caller's transaction, through the same service
 * functions as the tables, columns and roles endpoints (their checks, indexes, search indexes,
 * events and purge jobs), so that an apply leaves the project exactly as those calls would.
 */

/**
 * The columns service's 409s about stored rows (`settings.unique: existing rows hold duplicate
 * values…`, `type: existing rows do not fit…`): an apply answers them as 422, as its own checks do.
 */
const ROWS_REFUSED = /^(settings\.unique|settings\.required|type): /;

/** Errors of one change name it: `tables.posts.columns.title: …`, details prefixed alike. */
async function within<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.status === 409 && ROWS_REFUSED.test(error.message)) throw validationError([{ field: path, message: error.message }]);
    const details = error.details?.map((d) => ({ field: `${path}.${d.field}`, message: d.message })) ?? null;
    throw new AppError(error.status, error.errorCode, `${path}: ${error.message}`, details, error.headers);
  }
}

/** The project's tables as this transaction sees them (the shared cache reads committed data only). */
function tablesOf(tx: EntityManager, projectId: string): RuleContext['tables'] {
  return async (idOrKey) => {
    const [table] = await runSql<{ id: string; key: string; default_status: TableDef['defaultStatus'] }>(tx, liveTable(projectId, idOrKey));
    if (!table) return null;
    const columns = await runSql<ColumnDef & { deleted: boolean }>(tx, columnsOfTable(table.id));
    return {
      id: table.id,
      projectId,
      key: table.key,
      defaultStatus: table.default_status,
      columns: columns.filter((c) => !c.deleted).map(({ deleted: _d, ...c }) => c),
      hiddenKeys: [],
      schemaKey: '',
    };
  };
}

/** Settings that replace the current ones: keys the target leaves out are removed (`null`). */
function settingsPatch(current: Record<string, unknown>, target: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...target };
  for (const key of Object.keys(current)) if (!(key in target)) patch[key] = null;
  return patch;
}

export async function runPlan(tx: EntityManager, boss: PgBoss, project: ProjectInfo, current: CurrentSchema, changes: PlannedChange[], target: Snapshot): Promise<void> {
  const projectId = project.id;
  const tableIds = new Map(current.tableIds);
  const orders: { tableId: string; key: string; order: string[] }[] = [];
  // After the columns: a display may name a column this apply adds or renames (checked then, 422).
  const tableUpdates: { tableId: string; path: string; fields: Record<string, unknown> }[] = [];
  // Column changes build indexes and convert rows of the shared `contents` table.
  if (changes.some((c) => c.column !== undefined)) await runSql(tx, lockContentsWrites());
  for (const change of changes) {
    const key = change.table!;
    const path = `tables.${key}${change.column !== undefined ? `.columns.${change.column}` : ''}`;
    switch (change.op) {
      case 'createTable': {
        const to = change.to as { name: string; description: string; defaultStatus: 'PUBLISHED' };
        const table = await within(path, () => createTable(tx, projectId, { projectId, key, ...to }));
        tableIds.set(key, table.id);
        break;
      }
      case 'updateTable': {
        const tableId = tableIds.get(key)!;
        const { columns: _c, settings, ...fields } = change.to!;
        if (settings !== undefined) fields.settings = settingsPatch((change.from!.settings ?? {}) as Record<string, unknown>, settings as Record<string, unknown>);
        if (Object.keys(fields).length > 0) tableUpdates.push({ tableId, path, fields });
        if (change.order) orders.push({ tableId, key, order: change.order });
        break;
      }
      case 'dropTable':
        await within(path, async () => deleteTable(tx, boss, projectId, await findTable(tx, projectId, tableIds.get(key)!)));
        break;
      case 'addColumn': {
        const column = change.target!;
        const tableId = tableIds.get(key)!;
        await within(path, () => createColumn(tx, project, tableId, { projectId, tableId, name: column.name, label: column.label, type: column.type, settings: { ...column.settings } }));
        break;
      }
      case 'updateColumn': {
        const was = change.current!;
        const column = change.target!;
        const tableId = tableIds.get(key)!;
        const columnId = current.columnIds.get(columnKey(key, was.name))!;
        await within(path, async () => {
          const from = defOf(was, columnId);
          const to = defOf(column, columnId, was.name);
          if (touchesValues(from, to)) {
            // Converted under the current name; the columns service then renames, localizes and checks them.
            const scan = await scanValues(tx, tableId, from, to, project.defaultLocale, (ids, values) => runSql(tx, writeValues(tableId, was.name, ids, values)).then(() => undefined));
            if (scan.refused.length > 0) throw validationError([{ field: 'type', message: `rows whose value does not fit (${scan.reason}): ${scan.refused.join(', ')}` }]);
          }
          const settings = settingsPatch(was.settings, column.settings);
          await updateColumn(tx, project, tableId, { projectId, tableId, columnId, name: column.name, label: column.label, type: column.type, settings });
        });
        break;
      }
      case 'dropColumn': {
        const tableId = tableIds.get(key)!;
        await within(path, () => deleteColumn(tx, boss, project, tableId, current.columnIds.get(columnKey(key, change.current!.name))!));
        break;
      }
      default:
        break; // roles: below, once every table is in place
    }
  }
  for (const { tableId, key, order } of orders) {
    const live = await tablesOf(tx, projectId)(tableId);
    const ids = order.map((name) => live!.columns.find((c) => c.name === name)?.id);
    if (ids.some((id) => id === undefined)) throw new Error(`columns of ${key} differ from the plan`);
    await runSql(tx, setPositions(tableId, ids as string[]));
  }
  for (const { tableId, path, fields } of tableUpdates) {
    await within(path, async () => updateTable(tx, projectId, await findTable(tx, projectId, tableId), { projectId, tableId, ...fields }));
  }
  await applyRoles(tx, project, current, changes, target);
}

async function applyRoles(tx: EntityManager, project: ProjectInfo, current: CurrentSchema, changes: PlannedChange[], target: Snapshot): Promise<void> {
  const ctx: RuleContext = { projectId: project.id, locales: project.locales, defaultLocale: project.defaultLocale, tables: tablesOf(tx, project.id) };
  const projectId = project.id;
  const touched = new Set<string>();
  for (const change of changes) {
    const name = change.role;
    if (name === undefined) continue;
    touched.add(name);
    const path = `roles.${name}`;
    const roleId = current.roleIds.get(name);
    const to = (change.to ?? {}) as { description?: string; rules?: never };
    if (change.op === 'dropRole') await within(path, () => deleteRole(tx, projectId, roleId!));
    if (change.op === 'updateRole') await within(path, () => updateRole(tx, ctx, { projectId, roleId: roleId!, ...to }));
    if (change.op === 'createRole') await within(path, () => createRole(tx, ctx, { projectId, name, description: to.description, rules: to.rules! }));
  }
  // A role the plan leaves alone must still make sense against the new tables and columns.
  for (const role of target.roles) {
    if (!touched.has(role.name)) await within(`roles.${role.name}`, () => validateRules(role.rules, ctx));
  }
}
