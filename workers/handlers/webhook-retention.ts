import type { PgBoss } from 'pg-boss';
import type { Config } from '../../src/config/config.js';
import type { Orm } from '../../src/db/orm.js';
import { QUEUES } from '../../src/jobs/queues.js';
import type { Logger } from '../../src/shared/logger.js';

/** Rows deleted per statement: short locks, small WAL bursts. */
const BATCH = 1000;

/** Hourly, at a minute unlikely to collide with other hourly work. */
const CRON = '23 * * * *';

/**
 * Keeps webhook history bounded: queued event bodies and their delivery attempts are kept for
 * LOG_RETENTION_DAYS (delivery attempts are a log of their own), then removed in batches. An
 * event still pending (a retry scheduled) is kept until it settles. Deleting an event removes its
 * attempts with it (foreign key).
 */
export async function startRetentionWorker(boss: PgBoss, orm: Orm, logger: Logger, config: Config): Promise<string> {
  const log = logger.child({ worker: 'webhook-retention' });
  const execute = (sql: string, params: unknown[]) => orm.em.getConnection().execute<{ event_id: string }[]>(sql, params);
  await boss.schedule(QUEUES.webhookRetention.name, CRON);
  return boss.work(QUEUES.webhookRetention.name, { batchSize: 1, pollingIntervalSeconds: 5 }, async () => {
    const cutoff = new Date(Date.now() - config.LOG_RETENTION_DAYS * 86_400_000);
    let removed = 0;
    for (;;) {
      const deleted = await execute(
        `delete from webhook_event where ctid in (
           select ctid from webhook_event where created_at < ? and state <> 'pending' limit ?
         ) returning event_id`,
        [cutoff, BATCH],
      );
      removed += deleted.length;
      if (deleted.length < BATCH) break;
    }
    if (removed > 0) log.info({ removed }, 'webhook history past retention removed');
  });
}
