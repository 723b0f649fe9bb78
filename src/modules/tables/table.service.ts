import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { findPage } from '../../db/find-page.js';
import { conflict, notFound } from '../../errors/app-error.js';
import { emitEvents } from '../events/outbox.js';
import { enqueue, outboxOfEm } from '../../jobs/outbox.js';
import { newEvent, type EventType } from '../events/vocabulary.js';
import { QUEUES } from '../../jobs/queues.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import { runSql } from '../../db/sql.js';
import { columnsOfTable } from './table.sql.js';
import { checkDisplay } from './table-display.js';
import { TableSchema, type ContentTable, type TableSettings } from './table.entity.js';
import type { CreateTableInput, TableOutput, UpdateTableInput } from './table.schema.js';

export const toTableOutput = (t: ContentTable): TableOutput => ({
  id: t.id,
  key: t.key,
  name: t.name,
  description: t.description,
  defaultStatus: t.defaultStatus,
  settings: { ...t.settings },
  createdAt: iso(t.createdAt),
  updatedAt: iso(t.updatedAt),
});

/** `{tableId}` may be the id or the table's key (docs/contents.md#tables-and-columns). Deleted tables are 404. */
export async function findTable(em: EntityManager, projectId: string, tableId: string): Promise<ContentTable> {
  const table = await em.findOne(TableSchema, {
    project: projectId,
    deletedAt: null,
    ...(isUuid(tableId) ? { id: tableId } : { key: tableId }),
  });
  if (!table) throw notFound('Table');
  return table;
}

/** The project's tables; `only` (keys): the ones a caller's role names (docs/roles.md#rules). */
export async function listTables(em: EntityManager, projectId: string, params: PageParams, only?: string[]) {
  const where = { project: projectId, deletedAt: null, ...(only ? { key: { $in: only } } : {}) };
  return findPage(em, TableSchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toTableOutput);
}

async function flushUniqueKey(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict('key is already used by another table of this project');
    throw error;
  }
}

/** The `tables.*` event of a change, recorded in the change's transaction (docs/webhooks.md#how-it-runs). */
const emitTableEvent = (tx: EntityManager, type: EventType, projectId: string, table: ContentTable) =>
  emitEvents(outboxOfEm(tx), [newEvent(type, projectId, table.id, toTableOutput(table))]);

export async function createTable(em: EntityManager, projectId: string, input: CreateTableInput): Promise<ContentTable> {
  return em.transactional(async (tx) => {
    const table = tx.create(TableSchema, {
      project: projectId,
      key: input.key,
      name: input.name,
      description: input.description ?? '',
      defaultStatus: input.defaultStatus ?? 'PUBLISHED',
    });
    await flushUniqueKey(tx);
    await emitTableEvent(tx, 'tables.created', projectId, table);
    return table;
  });
}

/** Settings merged key by key (null removes one); a display naming unknown columns is 422. */
async function mergeTableSettings(tx: EntityManager, table: ContentTable, patch: { display?: string | null }): Promise<TableSettings> {
  const merged: TableSettings = { ...table.settings };
  if (patch.display === null) delete merged.display;
  else if (patch.display !== undefined) {
    const columns = await runSql<{ name: string; deleted: boolean }>(tx, columnsOfTable(table.id));
    checkDisplay(patch.display, columns.filter((c) => !c.deleted).map((c) => c.name));
    merged.display = patch.display;
  }
  return merged;
}

export async function updateTable(
  em: EntityManager,
  projectId: string,
  table: ContentTable,
  input: UpdateTableInput,
): Promise<ContentTable> {
  return em.transactional(async (tx) => {
    const managed = tx.merge(table);
    if (input.key !== undefined) managed.key = input.key;
    if (input.name !== undefined) managed.name = input.name;
    if (input.description !== undefined) managed.description = input.description;
    if (input.defaultStatus !== undefined) managed.defaultStatus = input.defaultStatus;
    if (input.settings !== undefined) managed.settings = await mergeTableSettings(tx, managed, input.settings);
    await flushUniqueKey(tx);
    await emitTableEvent(tx, 'tables.updated', projectId, managed);
    return managed;
  });
}

/** Soft delete: unreachable at once, rows purged in the background (docs/contents.md#tables-and-columns). */
export async function deleteTable(em: EntityManager, boss: PgBoss, projectId: string, table: ContentTable): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(TableSchema, { id: table.id }, { deletedAt: new Date() });
    await enqueue(outboxOfEm(tx), boss, QUEUES.purge.name, { kind: 'table', id: table.id });
    await emitTableEvent(tx, 'tables.deleted', projectId, table);
  });
}
