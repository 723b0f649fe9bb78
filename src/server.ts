import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppDeps } from './app-deps.js';
import { CredentialResolver } from './auth/credentials.js';
import { ProjectDirectory } from './modules/projects/project-directory.js';
import { ListCache, detectTextOrder } from './modules/contents/index.js';
import { TableDefinitions } from './modules/tables/table-definitions.js';
import type { Config } from './config/config.js';
import { openMigratedOrm } from './db/migrate.js';
import { createPool } from './db/pool.js';
import { ReplicaSet } from './db/replicas.js';
import { createApp } from './http/app.js';
import { answerClientError } from './http/client-error.js';
import { drainable } from './http/drain.js';
import { answerStalledBody, watchStalledBodies } from './http/stalled-bodies.js';
import { startBoss } from './jobs/boss.js';
import { QUEUES } from './jobs/queues.js';
import { RequestLogBuffer } from './modules/logs/log-buffer.js';
import { logJob } from './modules/logs/log-wire.js';
import { bootstrapAdmin } from './modules/accounts/bootstrap.js';
import type { Logger } from './shared/logger.js';
import { createStorage } from './storage/storage.js';
import { EventFeed } from './modules/events/feed/feed-reader.js';
import { EventStreams } from './modules/events/stream/stream-registry.js';
import { ImageDerivatives, sweepUnusedDerivatives } from './modules/images/derivative.service.js';
import { ImageTransformer } from './modules/images/image-transformer.js';
import { createOrmConfig } from '../mikro-orm.config.js';

export interface RunningApi {
  url: string;
  port: number;
  deps: AppDeps;
  /** True when this start-up created the first account and printed its token. */
  printedAdminToken: boolean;
  /**
   * Stops accepting, drains in-flight requests (up to `drainMs`), then closes queues and pools,
   * giving each at most `closeMs`.
   */
  close(drainMs?: number, closeMs?: number): Promise<void>;
}

/** Starts the API on `config.PORT` (0 = any free port) against `databaseUrl`. */
export async function startApi(config: Config, databaseUrl: string, logger: Logger): Promise<RunningApi> {
  const orm = await openMigratedOrm(createOrmConfig(databaseUrl));
  const boss = await startBoss(databaseUrl, logger, 'api');
  const printedAdminToken = await bootstrapAdmin(orm.em.fork(), config, logger);
  const pool = createPool(databaseUrl, 10, logger);
  const textOrder = await detectTextOrder(pool);
  // One list cache per node: a cache is kept exact by reading its node's change log (docs/scaling-out.md#read-replicas).
  const reads = new ReplicaSet(databaseUrl, pool, config.DATABASE_REPLICA_URLS, {
    maxLagMs: config.REPLICA_MAX_LAG_MS, pollMs: config.REPLICA_CHECK_MS, poolSize: 10,
  }, () => new ListCache(textOrder), logger);
  await reads.start();
  const storage = createStorage(config, pool);
  const transformer = new ImageTransformer({ maxPixels: config.IMAGE_MAX_PIXELS, concurrency: config.IMAGE_CONCURRENCY });
  const deps: AppDeps = {
    config,
    orm,
    boss,
    logger,
    pool,
    credentials: new CredentialResolver(orm),
    projects: new ProjectDirectory(orm),
    tables: new TableDefinitions(orm),
    results: reads.primary.local,
    reads,
    storage,
    images: new ImageDerivatives({ orm, pool, storage, logger, transformer }),
    requestLogs: config.REQUEST_LOGGING
      ? new RequestLogBuffer(async (segments) => void (await boss.send(QUEUES.requestLogs.name, logJob(segments))), logger)
      : null,
    feed: new EventFeed(databaseUrl, pool, logger),
    streams: new EventStreams(pool, { maxPerCredential: config.REALTIME_MAX_STREAMS, recheckMs: config.REALTIME_RECHECK_MS }, logger),
  };
  await deps.feed.start();
  deps.streams.start();
  // Staged uploads of a process that died mid-request; nothing waits for this.
  deps.storage.sweep().catch((error: unknown) => logger.warn({ err: error }, 'could not sweep staged uploads'));
  // Derived images of bytes that a replace or delete let go while a process stopped before cleaning up.
  sweepUnusedDerivatives(orm.em.fork(), storage, logger).catch((error: unknown) => logger.warn({ err: error }, 'could not sweep derived images'));
  const server = createServer(
    {
      maxHeaderSize: config.HEADER_MAX_BYTES,
      // Slow clients may not hold a connection forever (slowloris): headers must arrive in time
      // (408 and closed otherwise). A body is bounded by its pauses, not its length: node's
      // requestTimeout (the whole request) is off, watchStalledBodies below ends stalled ones.
      headersTimeout: config.HEADERS_TIMEOUT_MS,
      requestTimeout: 0,
      keepAliveTimeout: 5_000,
      // node only looks for expired requests this often (default 30 s, which would let a
      // slowloris client stay half a minute past HEADERS_TIMEOUT_MS).
      connectionsCheckingInterval: Math.min(1_000, config.HEADERS_TIMEOUT_MS),
    },
    createApp(deps),
  );
  server.on('clientError', answerClientError);
  const stopWatchingBodies = watchStalledBodies(server, config.REQUEST_TIMEOUT_MS, answerStalledBody(logger));
  const drain = drainable(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;

  let closing: Promise<void> | undefined;
  const close = (drainMs = 10_000, closeMs = 5_000) =>
    (closing ??= (async () => {
      // Open streams end first (their clients reconnect elsewhere and resume), so draining waits for none.
      deps.streams.stop();
      await drain(drainMs);
      stopWatchingBodies();
      await within(deps.feed.stop(), closeMs, 'event feed', logger);
      // Every request has finished: its log entry is in the buffer, and goes out before the queue closes.
      if (deps.requestLogs) await within(deps.requestLogs.close(), closeMs, 'request log buffer', logger);
      await within(boss.stop({ graceful: true, timeout: closeMs }), closeMs + 1_000, 'job queue', logger);
      await within(reads.stop(), closeMs, 'replica pools', logger);
      await within(pool.end(), closeMs, 'database pool', logger);
      await within(orm.close(true), closeMs, 'ORM connections', logger);
    })());
  return { url: `http://${host}:${port}`, port, deps, printedAdminToken, close };
}

/**
 * Waits for one shutdown step, at most `ms`. A connection that PostgreSQL dropped after a
 * protocol error (a NUL in a bind parameter did that) kept the ORM's pool from ever closing,
 * and with it the process from exiting on SIGTERM.
 */
async function within(step: Promise<unknown>, ms: number, what: string, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), ms);
  });
  const outcome = await Promise.race([step.then(() => 'done', (error: unknown) => error), expired]);
  clearTimeout(timer);
  if (outcome === 'expired') logger.warn({ step: what, ms }, 'shutdown step did not finish in time; going on');
  else if (outcome !== 'done') logger.warn({ err: outcome, step: what }, 'shutdown step failed; going on');
}
