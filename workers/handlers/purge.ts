import type { Job } from 'pg-boss';
import type { Orm } from '../../src/db/orm.js';
import type { PurgeJob } from '../../src/jobs/queues.js';
import type { Logger } from '../../src/shared/logger.js';

/** Rows deleted per statement: small enough to keep locks and WAL bursts short. */
const BATCH = 500;

/**
 * Hard-deletes what a soft delete made unreachable. Idempotent and resumable: every step only
 * deletes rows that are still there, so a retried or repeated job finishes the work.
 */
export function createPurgeHandler(orm: Orm, logger: Logger) {
  const execute = (sql: string, params: unknown[]) => orm.em.getConnection().execute(sql, params);

  async function purgeProject(projectId: string): Promise<void> {
    // Foreign keys cascade from the project row to everything below it.
    await execute('delete from project where id = ?', [projectId]);
  }

  async function purgeWorkspace(workspaceId: string): Promise<void> {
    for (;;) {
      const rows = (await execute('select id from project where workspace_id = ? limit ?', [workspaceId, BATCH])) as { id: string }[];
      for (const row of rows) await purgeProject(row.id);
      if (rows.length < BATCH) break;
    }
    await execute('delete from workspace where id = ? and deleted_at is not null', [workspaceId]);
  }

  return async (jobs: Job<PurgeJob>[]): Promise<void> => {
    for (const job of jobs) {
      const { kind, id } = job.data;
      if (kind === 'workspace') await purgeWorkspace(id);
      else {
        const [row] = (await execute('select deleted_at from project where id = ?', [id])) as { deleted_at: Date | null }[];
        if (row?.deleted_at) await purgeProject(id);
      }
      logger.info({ kind, id }, 'purged');
    }
  };
}
