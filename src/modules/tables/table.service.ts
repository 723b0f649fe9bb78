import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { conflict, notFound } from '../../errors/app-error.js';
import { enqueue } from '../../jobs/outbox.js';
import { QUEUES } from '../../jobs/queues.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { paginationOf, pageWindow, wantsCount, type PageParams } from '../../shared/pagination.js';
import { TableSchema, type ContentTable } from './table.entity.js';
import type { CreateTableInput, TableOutput, UpdateTableInput } from './table.schema.js';

export const toTableOutput = (t: ContentTable): TableOutput => ({
  id: t.id,
  key: t.key,
  name: t.name,
  description: t.description,
  defaultStatus: t.defaultStatus,
  createdAt: iso(t.createdAt),
  updatedAt: iso(t.updatedAt),
});

/** `{tableId}` may be the id or the table's key (seed, SPEC §5). Deleted tables are 404. */
export async function findTable(em: EntityManager, projectId: string, tableId: string): Promise<ContentTable> {
  const table = await em.findOne(TableSchema, {
    project: projectId,
    deletedAt: null,
    ...(isUuid(tableId) ? { id: tableId } : { key: tableId }),
  });
  if (!table) throw notFound('Table');
  return table;
}

export async function listTables(em: EntityManager, projectId: string, params: PageParams) {
  const where = { project: projectId, deletedAt: null };
  const { offset, limit } = pageWindow(params);
  const [rows, total] = await Promise.all([
    em.find(TableSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, offset, limit }),
    wantsCount(params) ? em.count(TableSchema, where) : Promise.resolve(null),
  ]);
  return { list: rows.slice(0, params.size).map(toTableOutput), pagination: paginationOf(params, rows.length, total) };
}

async function flushUniqueKey(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict('key is already used by another table of this project');
    throw error;
  }
}

export async function createTable(em: EntityManager, projectId: string, input: CreateTableInput): Promise<ContentTable> {
  const table = em.create(TableSchema, {
    project: projectId,
    key: input.key,
    name: input.name,
    description: input.description ?? '',
    defaultStatus: input.defaultStatus ?? 'PUBLISHED',
  });
  await flushUniqueKey(em);
  return table;
}

export async function updateTable(em: EntityManager, table: ContentTable, input: UpdateTableInput): Promise<ContentTable> {
  if (input.key !== undefined) table.key = input.key;
  if (input.name !== undefined) table.name = input.name;
  if (input.description !== undefined) table.description = input.description;
  if (input.defaultStatus !== undefined) table.defaultStatus = input.defaultStatus;
  await flushUniqueKey(em);
  return table;
}

/** Soft delete: unreachable at once, rows purged in the background (SPEC §5). */
export async function deleteTable(em: EntityManager, boss: PgBoss, table: ContentTable): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(TableSchema, { id: table.id }, { deletedAt: new Date() });
    await enqueue(tx, boss, QUEUES.purge.name, { kind: 'table', id: table.id });
  });
}
