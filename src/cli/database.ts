import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from '../config/config.js';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../db/embedded.js';
import { openMigratedOrm } from '../db/migrate.js';
import { startBoss } from '../jobs/boss.js';
import { createLogger, logFormat } from '../shared/logger.js';
import { createOrmConfig } from '../../mikro-orm.config.js';

/**
 * Runs `fn` with a database URL: DATABASE_URL when set, else the embedded database that
 * `npm start` is running, else the embedded database started just for this command.
 */
export async function withDatabase<T>(config: Config, fn: (databaseUrl: string) => Promise<T>): Promise<T> {
  if (config.DATABASE_URL) return fn(config.DATABASE_URL);
  const dataDir = path.resolve(config.DATA_DIR, 'pg');
  const running = await runningEmbeddedUrl(dataDir);
  if (running) return fn(running);
  const embedded = await startEmbeddedPostgres({ dataDir });
  try {
    return await fn(embedded.url);
  } finally {
    await embedded.stop();
  }
}

/**
 * Runs `fn` with an entity manager on the migrated database (see withDatabase), and the URL for
 * whatever else the command opens on it (pg-boss).
 */
export async function withOrm<T>(config: Config, fn: (em: EntityManager, databaseUrl: string) => Promise<T>): Promise<T> {
  return withDatabase(config, async (url) => {
    const orm = await openMigratedOrm(createOrmConfig(url, { poolMax: 2 }));
    try {
      return await fn(orm.em.fork(), url);
    } finally {
      await orm.close(true);
    }
  });
}

/** Runs `fn` with a pg-boss instance that only reads and sends (no supervision, no workers). */
export async function withBoss<T>(databaseUrl: string, config: Config, fn: (boss: PgBoss) => Promise<T>): Promise<T> {
  // The CLI's stdout is its answer: its logs (pg-boss errors) go to stderr.
  const logger = createLogger(config.LOG_LEVEL, 'tabula-cli', { destination: 2, format: logFormat(config, Boolean(process.stderr.isTTY)) });
  const boss = await startBoss(databaseUrl, logger, 'api');
  try {
    return await fn(boss);
  } finally {
    await boss.stop({ graceful: true, timeout: 2_000 });
  }
}
