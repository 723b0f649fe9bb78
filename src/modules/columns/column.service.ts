import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { findPage } from '../../db/find-page.js';
import { onOneConnection, runSql, savepoint } from '../../db/sql.js';
import { conflict, fieldInvalid, notFound } from '../../errors/app-error.js';
import { enqueue, outboxOfEm } from '../../jobs/outbox.js';
import { QUEUES } from '../../jobs/queues.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import { checkValue, storedDefault } from '../contents/index.js';
import { resolveTableRefs } from '../tables/table-refs.js';
import { renameInDisplay } from '../tables/table-display.js';
import { TableSchema } from '../tables/table.entity.js';
import { createIndexStatements, dropConcurrentlyStatement, dropIndexesStatement, RESET_LOCK_TIMEOUT, RETIRED_INDEX, RETIRED_LOCK_TIMEOUT, retiredIndexesStatement, searchIndexStatements } from './column.ddl.js';
import { ColumnSchema, type ContentColumn } from './column.entity.js';
import type { ColumnOutput, CreateColumnInput, UpdateColumnInput } from './column.schema.js';
import { checkSettings } from './column.settings.js';
import { ddl, fillDefault, localizeValues, lockTable, mirrorSlug, nextColumnPosition, renameSlugSource, renameValues } from './column.sql.js';
import { findViolations } from './column-violations.js';
import { isLocalized, type ColumnDef, type ColumnSettings, type ColumnType } from '../tables/table-def.js';

export const toColumnOutput = (c: ContentColumn): ColumnOutput => ({
  id: c.id,
  name: c.name,
  label: c.label,
  type: c.type,
  settings: c.settings as Record<string, unknown>,
  position: c.position,
  createdAt: iso(c.createdAt),
  updatedAt: iso(c.updatedAt),
});

const toDef = (c: ContentColumn): ColumnDef => ({ id: c.id, name: c.name, type: c.type, settings: c.settings });

/** The table's columns; `only` (ids): the ones a caller with a role may read (docs/roles.md#rules). */
export async function listColumns(em: EntityManager, tableId: string, params: PageParams, only?: string[]) {
  const where = { table: tableId, deletedAt: null, ...(only ? { id: { $in: only } } : {}) };
  return findPage(em, ColumnSchema, where, params, { orderBy: { position: 'asc', id: 'asc' } }, toColumnOutput);
}

/** A live column by id or name; `only` (ids): a column outside them is 404, as an unknown one. */
export async function findColumn(em: EntityManager, tableId: string, columnId: string, only?: string[]): Promise<ContentColumn> {
  const column = await em.findOne(ColumnSchema, { table: tableId, deletedAt: null, ...(isUuid(columnId) ? { id: columnId } : { name: columnId }) });
  if (!column || (only && !only.includes(column.id))) throw notFound('Column');
  return column;
}

/** Name and slug rules that depend on the other columns of the table (409, docs/contents.md#tables-and-columns). */
async function checkSiblings(em: EntityManager, tableId: string, name: string, type: ColumnType, selfId?: string): Promise<void> {
  const siblings = await em.find(ColumnSchema, { table: tableId, id: { $ne: selfId ?? null } });
  const same = siblings.find((c) => c.name === name);
  if (same && !same.deletedAt) throw conflict(`name: a column named ${name} already exists in this table`);
  if (same) throw conflict(`name: a deleted column named ${name} is still being purged; retry in a moment`);
  if (type === 'slug' && siblings.some((c) => c.type === 'slug' && !c.deletedAt)) throw conflict('type: a table has at most one slug column');
}

/**
 * A reference column's `settings.table` names a table of the project by id or key (docs/contents.md#tables-and-columns: the
 * key stands in for the id); the id is what is stored and returned. Unknown: 422.
 */
async function withReferencedTableId(em: EntityManager, projectId: string, type: ColumnType, settings: ColumnSettings): Promise<ColumnSettings> {
  if (type !== 'reference') return settings;
  const id = (await resolveTableRefs(em, projectId, [settings.table!])).get(settings.table!);
  if (!id) throw fieldInvalid('settings.table', 'must be the id or key of a table of this project');
  return Object.assign(settings, { table: id });
}

/** Settings rules that need the database or the other columns (422, field `settings.<key>`). */
async function checkSemantics(em: EntityManager, tableId: string, column: ColumnDef): Promise<void> {
  const { settings } = column;
  if (column.type === 'slug' && settings.source !== undefined) {
    const source = await em.findOne(ColumnSchema, { table: tableId, name: settings.source, deletedAt: null });
    if (!source || source.type !== 'text') throw fieldInvalid('settings.source', 'must name a text column of this table');
  }
  if (settings.defaultValue !== undefined && settings.defaultValue !== null) {
    const checked = checkValue(column, settings.defaultValue);
    if (!checked.ok) throw fieldInvalid('settings.defaultValue', checked.message);
  }
}

async function applyIndexes(tx: EntityManager, tableId: string, column: ColumnDef, locales: string[]): Promise<void> {
  await runSql(tx, ddl(dropIndexesStatement(column.id)));
  for (const statement of createIndexStatements(tableId, column, locales)) await runSql(tx, ddl(statement));
}

/**
 * Brings the table's full-text search indexes in line with its searchable columns (unchanged
 * when the search document is; see searchIndexStatements). `changed` is the column this
 * transaction changes, as it will be once committed.
 */
async function syncSearchIndexes(tx: EntityManager, tableId: string, locales: string[], changed?: ColumnDef): Promise<void> {
  const live = await tx.find(ColumnSchema, { table: tableId, deletedAt: null }, { orderBy: { position: 'asc' } });
  const columns = live.map(toDef).map((column) => (changed && column.id === changed.id ? changed : column));
  for (const statement of searchIndexStatements({ id: tableId, columns }, locales)) await runSql(tx, ddl(statement));
}

/**
 * Unique index creation fails on duplicates: report them as docs/contents.md#tables-and-columns says. The work runs under a
 * savepoint: a failed statement aborts the transaction, and the duplicates must still be queried.
 */
async function withDuplicateCheck<T>(tx: EntityManager, tableId: string, column: ColumnDef, locales: string[], work: () => Promise<T>): Promise<T> {
  await runSql(tx, savepoint('savepoint', 'column_indexes'));
  try {
    const result = await work();
    await runSql(tx, savepoint('release savepoint', 'column_indexes'));
    return result;
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException || (error as { code?: string }).code === '23505') {
      await runSql(tx, savepoint('rollback to savepoint', 'column_indexes'));
      const ids = await findViolations(tx, tableId, column, 'unique', locales);
      throw conflict(`settings.unique: existing rows hold duplicate values of ${column.name}: ${ids.join(', ')}`);
    }
    throw error;
  }
}

export async function createColumn(em: EntityManager, project: ProjectInfo, tableId: string, input: CreateColumnInput): Promise<ContentColumn> {
  const settings = await withReferencedTableId(em, project.id, input.type, checkSettings(input.type, input.settings ?? {}));
  const def: ColumnDef = { id: '', name: input.name, type: input.type, settings };
  await checkSemantics(em, tableId, def);
  return em.transactional(async (tx) => {
    // One schema change per table at a time: positions and sibling checks stay consistent.
    await runSql(tx, lockTable(tableId));
    await checkSiblings(tx, tableId, input.name, input.type);
    const [{ next }] = await runSql<{ next: number }>(tx, nextColumnPosition(tableId));
    const column = tx.create(ColumnSchema, { table: tableId, name: input.name, label: input.label ?? input.name, type: input.type, settings, position: next });
    await tx.flush();
    if (settings.defaultValue !== undefined && settings.defaultValue !== null) {
      // Existing rows take the default, as a newly added column would in a SQL table.
      await runSql(tx, fillDefault(tableId, column.name, JSON.stringify(storedDefault(def, project.defaultLocale))));
    } else if (settings.required) {
      const ids = await findViolations(tx, tableId, toDef(column), 'required', project.locales, project.defaultLocale);
      if (ids.length > 0) throw conflict(`settings.required: existing rows have no value for ${column.name}: ${ids.join(', ')}`);
    }
    await withDuplicateCheck(tx, tableId, toDef(column), project.locales, () => applyIndexes(tx, tableId, toDef(column), project.locales));
    await syncSearchIndexes(tx, tableId, project.locales);
    return column;
  });
}

/** Merges settings key by key; `null` removes a setting (docs/concepts.md#conventions). */
function mergeSettings(current: ColumnSettings, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  // Without a prototype, a `__proto__` key in the patch stays an own key, which checkSettings
  // refuses; on a plain object the assignment would replace the prototype and vanish.
  const merged: Record<string, unknown> = Object.assign(Object.create(null), current);
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Puts a column at `position` (1 = first; past the end = last) among the table's live columns
 * and numbers them 1..n (docs/contents.md#tables-and-columns). The search document joins the
 * columns in this order, so its index follows (syncSearchIndexes, after this).
 */
async function moveColumn(tx: EntityManager, tableId: string, columnId: string, position: number): Promise<void> {
  const live = await tx.find(ColumnSchema, { table: tableId, deletedAt: null }, { orderBy: { position: 'asc', id: 'asc' } });
  const moving = live.find((c) => c.id === columnId)!;
  const order = live.filter((c) => c !== moving);
  order.splice(Math.min(position, live.length) - 1, 0, moving);
  order.forEach((c, i) => {
    if (c.position !== i + 1) c.position = i + 1;
  });
  await tx.flush();
}

/** A table's display naming a renamed column names it by its new name. */
async function renameDisplayColumn(tx: EntityManager, tableId: string, from: string, to: string): Promise<void> {
  const table = await tx.findOneOrFail(TableSchema, { id: tableId });
  if (table.settings.display !== undefined) table.settings = { ...table.settings, display: renameInDisplay(table.settings.display, from, to) };
}

export async function updateColumn(em: EntityManager, project: ProjectInfo, tableId: string, input: UpdateColumnInput): Promise<ContentColumn> {
  const column = await findColumn(em, tableId, input.columnId);
  const type = input.type ?? column.type;
  const name = input.name ?? column.name;
  const settings = await withReferencedTableId(em, project.id, type, checkSettings(type, mergeSettings(column.settings, input.settings)));
  const next: ColumnDef = { id: column.id, name, type, settings };
  await checkSemantics(em, tableId, next);
  return em.transactional(async (tx) => {
    await runSql(tx, lockTable(tableId));
    // After the lock: a concurrent change of this table is then visible (409, not a 500 from the index).
    if (name !== column.name || type !== column.type) await checkSiblings(tx, tableId, name, type, column.id);
    if (name !== column.name) {
      await runSql(tx, renameValues(tableId, column.name, name));
      // A slug derived from this column keeps following it, and so does the table's display.
      await runSql(tx, renameSlugSource(tableId, column.name, name));
      await renameDisplayColumn(tx, tableId, column.name, name);
    }
    if (input.position !== undefined) await moveColumn(tx, tableId, column.id, input.position);
    if (isLocalized(next) && !isLocalized(toDef(column))) {
      // A plain value of a localized column is the default locale's (docs/contents.md#contents).
      await runSql(tx, localizeValues(tableId, name, project.defaultLocale));
    }
    for (const rule of ['type', 'required'] as const) {
      const ids = await findViolations(tx, tableId, next, rule, project.locales, project.defaultLocale);
      if (ids.length > 0) throw conflict(`${rule === 'type' ? 'type' : 'settings.required'}: existing rows do not fit: ${ids.join(', ')}`);
    }
    await withDuplicateCheck(tx, tableId, next, project.locales, () => applyIndexes(tx, tableId, next, project.locales));
    if (type !== column.type && (type === 'slug' || column.type === 'slug')) {
      // `contents.slug` (lookups, uniqueness) mirrors the slug column's values.
      await withDuplicateCheck(tx, tableId, next, project.locales, () => runSql(tx, mirrorSlug(tableId, type === 'slug' ? name : null)));
    }
    await syncSearchIndexes(tx, tableId, project.locales, next);
    const managed = await tx.findOneOrFail(ColumnSchema, { id: column.id });
    Object.assign(managed, { name, type, settings, label: input.label ?? managed.label });
    return managed;
  });
}

/** Soft delete; values are removed from the rows by the purge job (docs/contents.md#tables-and-columns). */
export async function deleteColumn(em: EntityManager, boss: PgBoss, project: ProjectInfo, tableId: string, columnId: string): Promise<void> {
  const column = await findColumn(em, tableId, columnId);
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(ColumnSchema, { id: column.id }, { deletedAt: new Date() });
    await runSql(tx, ddl(dropIndexesStatement(column.id)));
    await syncSearchIndexes(tx, tableId, project.locales);
    // `slug` is null when the table has no slug column (docs/contents.md#contents); old slugs must not block new ones.
    if (column.type === 'slug') await runSql(tx, mirrorSlug(tableId, null));
    await enqueue(outboxOfEm(tx), boss, QUEUES.purge.name, { kind: 'column', id: column.id });
  });
}

/**
 * Drops the indexes that committed changes retired (column.ddl.ts), one at a time and
 * concurrently: outside any transaction, waiting for no read or write. Run after a change
 * commits; whatever it leaves (a failure, a stopped process) the next run drops. A drop waits
 * for the transactions under way; one of them may be a schema change that needs the lock the
 * drop holds: the drop gives up first (lock_timeout, below the deadlock check's 1 s), and the
 * next run retries.
 */
export async function dropRetiredIndexes(em: EntityManager): Promise<void> {
  await onOneConnection(em, async (run) => {
    const rows = await run<{ indexname: string }>(ddl(retiredIndexesStatement));
    if (rows.length === 0) return;
    await run(ddl(RETIRED_LOCK_TIMEOUT));
    try {
      for (const { indexname } of rows) if (RETIRED_INDEX.test(indexname)) await run(ddl(dropConcurrentlyStatement(indexname)));
    } finally {
      await run(ddl(RESET_LOCK_TIMEOUT));
    }
  });
}
