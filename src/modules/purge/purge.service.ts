import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql, type SqlQuery } from '../../db/sql.js';
import type { Storage, StorageDriver } from '../../storage/storage.js';
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
 * (local directory, bucket); its postgres-stored bytes go with its rows. Bytes that copies of the
 * project still hold stay (docs/concepts.md#copying-a-project). Answers whether it purged.
 */
export async function purgeDeleted(em: EntityManager, kind: q.PurgeKind, id: string, storage: Pick<Storage, 'removeProject' | 'of'>): Promise<boolean> {
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
    // Every stored byte no copy holds, whichever driver wrote it: postgres blobs, then the local
    // directory and the bucket. The `file` rows go with the project row (foreign key cascade).
    await run(q.handOverHeldBlobs(projectId));
    await deleteInBatches((batch) => q.fileBlobsBatch(projectId, batch), BLOB_BATCH);
    await removeBytesOutside(projectId);
    // Request logs have no foreign key (they are inserted in bulk, checked against live projects).
    await deleteInBatches((batch) => q.requestLogSegmentsBatch(projectId, batch));
    await run(q.deleteRequestRollups(projectId));
    // Foreign keys cascade from the project row to what is left (members, keys, file rows,
    // categories, variables, translations, roles).
    await run(q.deleteRow('project', projectId));
  }

  /** A blob's bytes, whichever driver holds them; a driver this process lacks (s3 unset) leaves them. */
  async function removeBytes(driver: StorageDriver, owner: string, key: string): Promise<void> {
    let store;
    try {
      store = storage.of(driver);
    } catch {
      return;
    }
    await store.remove(owner, key);
  }

  /**
   * The project's folder and bucket prefix go whole, unless copies hold some of the bytes there:
   * then the bytes nobody else holds go one by one. Bytes the project's files shared with the
   * project they were copied from go too when this project was their last holder.
   */
  async function removeBytesOutside(projectId: string): Promise<void> {
    for (const b of await run<{ storage_driver: StorageDriver; storage_project_id: string; storage_key: string }>(q.lastHeldBytes(projectId))) {
      await removeBytes(b.storage_driver, b.storage_project_id, b.storage_key);
    }
    const [{ held }] = await run<{ held: boolean }>(q.bytesHeldByOthers(projectId));
    if (!held) return storage.removeProject(projectId);
    for (const b of await run<{ storage_driver: StorageDriver; storage_key: string }>(q.ownBytesNotHeld(projectId))) {
      await removeBytes(b.storage_driver, projectId, b.storage_key);
    }
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
