import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../src/config/config.js';
import { openMigratedOrm } from '../src/db/migrate.js';
import { startBoss } from '../src/jobs/boss.js';
import { QUEUES } from '../src/jobs/queues.js';
import type { Logger } from '../src/shared/logger.js';
import { createPool } from '../src/db/pool.js';
import { TableDefinitions } from '../src/modules/tables/table-definitions.js';
import { startOutboxRelay } from './handlers/outbox-relay.js';
import { startScheduledPublisher } from './handlers/scheduled-publisher.js';
import { startChangeLogTrim } from './handlers/change-log.js';
import { startCdnPurge } from './handlers/cdn-purge.js';
import { startRevisionRetention } from './handlers/revisions.js';
import { startFeedRetention } from './handlers/event-feed.js';
import { createPurgeHandler } from './handlers/purge.js';
import { createStorage } from '../src/storage/storage.js';
import { startDeliveryWorker } from './handlers/webhook-delivery.js';
import { startRetentionWorker } from './handlers/webhook-retention.js';
import { startLogIngest, startLogRetention, startLogRollup } from './handlers/request-logs.js';
import type { Orm } from '../src/db/orm.js';
import { createOrmConfig } from '../mikro-orm.config.js';

interface WorkerDefinition {
  queue: string;
  /** May return a `stop` for work that is not a pg-boss handler (stopped before pg-boss). */
  start(boss: PgBoss, orm: Orm, logger: Logger, config: Config, databaseUrl: string): Promise<unknown>;
}

/** One handler per queue; each owns its state and talks to the rest through jobs and the database. */
const WORKERS: Record<string, WorkerDefinition> = {
  purge: {
    queue: QUEUES.purge.name,
    // The storage (once per process: it holds the S3 client) removes purged projects' bytes; its
    // pool connects only if the postgres driver is used, which a purge does through its own statements.
    start: (boss, orm, logger, config, databaseUrl) =>
      withPool(databaseUrl, logger, (pool) =>
        boss.work(
          QUEUES.purge.name,
          // With NOTIFY on, pg-boss polls only every 30 s between notifications: a full batch is
          // followed by the next fetch at once, so a backlog (workers back after a restart) drains
          // without that wait. (pg-boss ignores bursting at batchSize 1.) Purges are idempotent, so
          // the jobs of a batch that failed can all run again.
          { batchSize: 4, pollingIntervalSeconds: 1, burstWhenBatchFull: true },
          createPurgeHandler(orm, logger.child({ worker: 'purge' }), createStorage(config, pool)),
        ),
      ),
  },
  /** Committed events (event_outbox) → one delivery per subscribed webhook, in batches (docs/webhooks.md#how-it-runs). */
  outbox: { queue: QUEUES.deliveries.name, start: loopWorker(2, (pool, logger, { boss }) => startOutboxRelay(boss, pool, logger.child({ worker: 'outbox' }))) },
  /** SCHEDULED contents → PUBLISHED at their publishAt (docs/contents.md#statuses). */
  publisher: {
    queue: 'contents.scheduled',
    start: loopWorker(2, (pool, logger, { orm }) => startScheduledPublisher(pool, new TableDefinitions(orm), logger.child({ worker: 'publisher' }))),
  },
  /** Trims the contents change log that API processes read to keep their list caches exact. */
  'change-log': { queue: 'contents.changes', start: loopWorker(1, (pool, logger) => startChangeLogTrim(pool, logger.child({ worker: 'change-log' }))) },
  /** Purges CDN caches by surrogate key after each commit (docs/scaling-out.md#http-caches-and-purging). */
  'cdn-purge': { queue: 'cache.purge', start: loopWorker(2, (pool, logger, { config }) => startCdnPurge(pool, config, logger.child({ worker: 'cdn-purge' }))) },
  /** Keeps the newest REVISIONS_PER_ROW revisions of each contents row (docs/contents.md#revisions). */
  revisions: {
    queue: 'contents.revisions',
    start: loopWorker(1, (pool, logger, { config }) => startRevisionRetention(pool, config.REVISIONS_PER_ROW, logger.child({ worker: 'revisions' }))),
  },
  /** Trims the realtime feed to what resuming clients may still ask for (docs/realtime.md#resuming). */
  'event-feed': { queue: 'events.feed', start: loopWorker(1, (pool, logger) => startFeedRetention(pool, logger.child({ worker: 'event-feed' }))) },
  'webhook-delivery': { queue: QUEUES.deliveries.name, start: startDeliveryWorker },
  'webhook-retention': { queue: QUEUES.webhookRetention.name, start: startRetentionWorker },
  /** Request log segments → request_log_segment (docs/logs-and-metrics.md#request-logs). */
  'request-logs': {
    queue: QUEUES.requestLogs.name,
    start: (boss, _orm, logger, _config, databaseUrl) => withPool(databaseUrl, logger, (pool) => startLogIngest(boss, pool)),
  },
  'log-rollup': {
    queue: QUEUES.logRollup.name,
    start: (boss, _orm, logger, _config, databaseUrl) =>
      withPool(databaseUrl, logger, (pool) => startLogRollup(boss, pool, logger.child({ worker: 'log-rollup' }))),
  },
  'log-retention': {
    queue: QUEUES.logRetention.name,
    start: (boss, _orm, logger, config, databaseUrl) =>
      withPool(databaseUrl, logger, (pool) => startLogRetention(boss, pool, logger.child({ worker: 'log-retention' }), config.LOG_RETENTION_DAYS)),
  },
};

/**
 * A worker that runs a loop (workers/loop.ts) on a pool of `poolSize` connections of its own:
 * the loop is stopped, then the pool closed.
 */
function loopWorker(
  poolSize: number,
  start: (pool: pg.Pool, logger: Logger, env: { boss: PgBoss; orm: Orm; config: Config }) => { stop(): Promise<void> },
): WorkerDefinition['start'] {
  return async (boss, orm, logger, config, databaseUrl) => {
    const pool = createPool(databaseUrl, poolSize, logger);
    const loop = start(pool, logger, { boss, orm, config });
    return {
      stop: async () => {
        await loop.stop();
        await pool.end();
      },
    };
  };
}

/**
 * Starts a pg-boss handler that works on a small pool of its own; the pool is closed on stop,
 * after pg-boss has let the handler's jobs finish.
 */
async function withPool(databaseUrl: string, logger: Logger, start: (pool: pg.Pool) => Promise<unknown>) {
  const pool = createPool(databaseUrl, 2, logger);
  await start(pool);
  return { stopAfterBoss: () => pool.end() };
}

export const WORKER_NAMES = Object.keys(WORKERS);

export interface RunningWorkers {
  names: string[];
  /** `timeoutMs`: how long in-flight jobs may take to finish before they are released. */
  stop(timeoutMs?: number): Promise<void>;
}

export async function startWorkers(config: Config, databaseUrl: string, logger: Logger, only?: string[]): Promise<RunningWorkers> {
  const orm = await openMigratedOrm(createOrmConfig(databaseUrl, { poolMax: 5 }));
  const boss = await startBoss(databaseUrl, logger, 'worker');
  const names = only?.length ? only : WORKER_NAMES;
  const stoppers: (() => Promise<void>)[] = [];
  const afterBoss: (() => Promise<void>)[] = [];
  for (const name of names) {
    const started = (await WORKERS[name].start(boss, orm, logger, config, databaseUrl)) as
      | { stop?: () => Promise<void>; stopAfterBoss?: () => Promise<void> }
      | undefined;
    if (typeof started?.stop === 'function') stoppers.push(started.stop);
    if (typeof started?.stopAfterBoss === 'function') afterBoss.push(started.stopAfterBoss);
  }
  return {
    names,
    // Graceful: in-flight jobs finish (or, past the timeout, are released back to the queue).
    stop: async (timeoutMs = 20_000) => {
      await Promise.all(stoppers.map((stop) => stop()));
      await boss.stop({ graceful: true, timeout: timeoutMs });
      await Promise.all(afterBoss.map((stop) => stop()));
      await orm.close(true);
    },
  };
}
