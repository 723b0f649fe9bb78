import type { PgBoss } from 'pg-boss';
import type { Config } from '../../src/config/config.js';
import type { Orm } from '../../src/db/orm.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { removeWebhookHistoryBefore } from '../../src/modules/webhooks/webhook.service.js';
import type { Logger } from '../../src/shared/logger.js';

/** Hourly, at a minute unlikely to collide with other hourly work. */
const CRON = '23 * * * *';

/**
 * Keeps webhook history bounded: queued event bodies and their delivery attempts are kept for
 * LOG_RETENTION_DAYS (delivery attempts are a log of their own), then removed in batches.
 */
export async function startRetentionWorker(boss: PgBoss, orm: Orm, logger: Logger, config: Config): Promise<string> {
  const log = logger.child({ worker: 'webhook-retention' });
  await boss.schedule(QUEUES.webhookRetention.name, CRON);
  return boss.work(QUEUES.webhookRetention.name, { batchSize: 1, pollingIntervalSeconds: 5 }, async () => {
    const cutoff = new Date(Date.now() - config.LOG_RETENTION_DAYS * 86_400_000);
    const removed = await removeWebhookHistoryBefore(orm.em, cutoff);
    if (removed > 0) log.info({ removed }, 'webhook history past retention removed');
  });
}
