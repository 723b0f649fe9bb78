import type { Job } from 'pg-boss';
import type { Orm } from '../../src/db/orm.js';
import type { PurgeJob } from '../../src/jobs/queues.js';
import type { Logger } from '../../src/shared/logger.js';
import { purgeProjectFiles } from '../../src/storage/purge.js';

/** Rows deleted per statement: small enough to keep locks and WAL bursts short. */
const BATCH = 1000;

/**
 * Hard-deletes what a soft delete made unreachable (SPEC §5). Idempotent and resumable: each
 * step deletes in batches only rows that are still there, so a retried job finishes the work
 * and a repeated one does nothing. `storageDir` is STORAGE_DIR, where a purged project's local
 * file bytes are removed (its postgres-stored bytes go with its rows).
 */
export function createPurgeHandler(orm: Orm, logger: Logger, storageDir: string) {
  const execute = <T = unknown>(sql: string, params: unknown[]) => orm.em.getConnection().execute<T[]>(sql, params);

  async function deleteInBatches(sql: string, params: unknown[]): Promise<void> {
    for (;;) {
      const deleted = await execute<{ id: string }>(sql, [...params, BATCH]);
      if (deleted.length < BATCH) return;
    }
  }

  async function purgeTable(tableId: string): Promise<void> {
    await deleteInBatches(
      'delete from contents where id in (select id from contents where table_id = ? limit ?) returning id',
      [tableId],
    );
    await execute('delete from content_table where id = ?', [tableId]);
  }

  /** Removes a deleted column's values from every row, then the column itself. */
  async function purgeColumn(columnId: string): Promise<void> {
    const [column] = await execute<{ table_id: string; name: string }>('select table_id, name from content_column where id = ?', [columnId]);
    if (!column) return;
    // (A slug column's `contents.slug` was cleared when it was deleted: a newer slug column may own it now.)
    await deleteInBatches(
      `update contents set data = data - ?::text
        where id in (select id from contents where table_id = ? and jsonb_exists(data, ?) limit ?) returning id`,
      [column.name, column.table_id, column.name],
    );
    await execute('delete from content_column where id = ?', [columnId]);
  }

  async function purgeProject(projectId: string): Promise<void> {
    for (const row of await execute<{ id: string }>('select id from content_table where project_id = ?', [projectId])) {
      await purgeTable(row.id);
    }
    await purgeProjectFiles(execute, projectId, storageDir);
    // Request logs have no foreign key (they are inserted in bulk, checked against live projects).
    await deleteInBatches('delete from request_log_segment where id in (select id from request_log_segment where project_id = ? limit ?) returning 1', [projectId]);
    await execute('delete from request_rollup where project_id = ?', [projectId]);
    // Foreign keys cascade from the project row to what is left (members, keys, file rows,
    // categories, variables, translations).
    await execute('delete from project where id = ?', [projectId]);
  }

  async function purgeWorkspace(workspaceId: string): Promise<void> {
    for (const row of await execute<{ id: string }>('select id from project where workspace_id = ?', [workspaceId])) {
      await purgeProject(row.id);
    }
    await execute('delete from workspace where id = ?', [workspaceId]);
  }

  const STILL_DELETED: Record<PurgeJob['kind'], string> = {
    workspace: 'select 1 from workspace where id = ? and deleted_at is not null',
    project: 'select 1 from project where id = ? and deleted_at is not null',
    table: 'select 1 from content_table where id = ? and deleted_at is not null',
    column: 'select 1 from content_column where id = ? and deleted_at is not null',
  };
  const PURGE: Record<PurgeJob['kind'], (id: string) => Promise<void>> = {
    workspace: purgeWorkspace,
    project: purgeProject,
    table: purgeTable,
    column: purgeColumn,
  };

  return async (jobs: Job<PurgeJob>[]): Promise<void> => {
    for (const job of jobs) {
      const { kind, id } = job.data;
      const purge = PURGE[kind];
      // Only what is (still) soft-deleted: a replayed job must never touch live rows.
      if ((await execute(STILL_DELETED[kind], [id])).length === 0) continue;
      await purge(id);
      logger.info({ kind, id }, 'purged');
    }
  };
}
