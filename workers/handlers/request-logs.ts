import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { sqlOn } from '../../src/db/sql.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { decodeLogJob } from '../../src/modules/logs/log-wire.js';
import { compactLogSegments, deleteExpiredLogs, insertLogSegments, rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import type { Logger } from '../../src/shared/logger.js';

/** Jobs taken together: their segments go into one insert statement. */
const INGEST_JOBS_PER_INSERT = 20;

/** Request log segments from the API processes → `request_log_segment`, in bulk. */
export function startLogIngest(boss: PgBoss, pool: pg.Pool): Promise<string> {
  return boss.work<Parameters<typeof decodeLogJob>[1]>(
    QUEUES.requestLogs.name,
    // A full batch is followed by the next fetch at once: a backlog (workers back after a
    // restart) drains without waiting for the 30 s backstop poll between batches.
    { batchSize: INGEST_JOBS_PER_INSERT, pollingIntervalSeconds: 1, burstWhenBatchFull: true },
    async (jobs) => {
      const segments = await Promise.all(jobs.map((job) => decodeLogJob(job.id, job.data)));
      await insertLogSegments(sqlOn(pool), segments.flat());
    },
  );
}

/** Every minute (docs/logs-and-metrics.md#workspace-metrics: rollups every minute). */
const ROLLUP_CRON = '* * * * *';

/**
 * New request logs → hourly rollups, then small segments of past hours merged. Safe to run in
 * several workers at once (see rollUpRequestLogs and compactLogSegments).
 */
export async function startLogRollup(boss: PgBoss, pool: pg.Pool, logger: Logger): Promise<string> {
  await boss.schedule(QUEUES.logRollup.name, ROLLUP_CRON);
  return boss.work(QUEUES.logRollup.name, { batchSize: 1, pollingIntervalSeconds: 5 }, async () => {
    const { folded } = await rollUpRequestLogs(pool);
    if (folded > 0) logger.debug({ folded }, 'request logs rolled up');
    const { merged, into } = await compactLogSegments(pool);
    if (merged > 0) logger.debug({ merged, into }, 'small request log segments merged');
  });
}

/** Hourly, at a minute of its own. */
const RETENTION_CRON = '41 * * * *';

/** Request logs older than LOG_RETENTION_DAYS are deleted (rollups stay). */
export async function startLogRetention(boss: PgBoss, pool: pg.Pool, logger: Logger, days: number): Promise<string> {
  await boss.schedule(QUEUES.logRetention.name, RETENTION_CRON);
  return boss.work(QUEUES.logRetention.name, { batchSize: 1, pollingIntervalSeconds: 5 }, async () => {
    const removed = await deleteExpiredLogs(pool, days);
    if (removed > 0) logger.info({ removed }, 'request logs past retention removed');
  });
}
