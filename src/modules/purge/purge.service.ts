import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql, type SqlQuery } from '../../db/sql.js';
import type { Storage } from '../../storage/storage.js';
import * as q from './purge.sql.js';

/** Rows deleted per statement: small enough to keep locks and WAL bursts short. */
const BATCH = 1000;
/** File blobs per statement: each one may hold many megabytes of chunks. */
const BLOB_BATCH = 20;

/**
 * Hard-deletes what a soft delete made unreachable. Idempotent and resumable: each
 * step deletes in batches only rows that are still there, so a retried job finishes the work
 * and a repeated one does nothing. Only what is (still) soft-deleted is purged: a replayed job
 * never touches live rows. `storage` removes a purged project's bytes kept outside the database
 * (local directory, bucket); its postgres-stored bytes go with its rows. Answers whether it purged.
 */
export async function purgeDeleted(em: EntityManager, kind: q.PurgeKind, id: string, storage: Pick<Storage, 'removeProject'>): Promise<boolean> {
  const run = <T extends object>(query: SqlQuery) => runSql<T>(em, query);

  async function deleteInBatches(batchOf: (batch: number) => SqlQuery, batch = BATCH): Promise<void> {
    for (;;) {
      const deleted = await run(batchOf(batch));
      if (deleted.length < batch) return;
    }
  }

  async function purgeTable(tableId: string): Promise<void> {
    await deleteInBatches((batch) => q.contentsBatchOfTable(tableId, batch));
    await run(q.deleteRow('table', tableId));
  }

  /** Removes a deleted column's values from every row, then the column itself. */
  async function purgeColumn(columnId: string): Promise<void> {
    const [column] = await run<{ table_id: string; name: string }>(q.columnOf(columnId));
    if (!column) return;
    // (A slug column's `contents.slug` was cleared when it was deleted: a newer slug column may own it now.)
    await deleteInBatches((batch) => q.columnValuesBatch(column.table_id, column.name, batch));
    await run(q.deleteRow('column', columnId));
  }

  async function purgeProject(projectId: string): Promise<void> {
    for (const row of await run<{ id: string }>(q.tablesOfProject(projectId))) {
      await purgeTable(row.id);
    }
    // Every stored byte, whichever driver wrote it: postgres blobs, then the local directory and
    // the bucket. The `file` rows go with the project row (foreign key cascade).
    await deleteInBatches((batch) => q.fileBlobsBatch(projectId, batch), BLOB_BATCH);
    await storage.removeProject(projectId);
    // Request logs have no foreign key (they are inserted in bulk, checked against live projects).
    await deleteInBatches((batch) => q.requestLogSegmentsBatch(projectId, batch));
    await run(q.deleteRequestRollups(projectId));
    // Foreign keys cascade from the project row to what is left (members, keys, file rows,
    // categories, variables, translations, roles).
    await run(q.deleteRow('project', projectId));
  }

  async function purgeWorkspace(workspaceId: string): Promise<void> {
    for (const row of await run<{ id: string }>(q.projectsOfWorkspace(workspaceId))) {
      await purgeProject(row.id);
    }
    await run(q.deleteRow('workspace', workspaceId));
  }

  const PURGE: Record<q.PurgeKind, (id: string) => Promise<void>> = {
    workspace: purgeWorkspace,
    project: purgeProject,
    table: purgeTable,
    column: purgeColumn,
  };
  if ((await run(q.stillDeleted(kind, id))).length === 0) return false;
  await PURGE[kind](id);
  return true;
}
