import path from 'node:path';
import type { Config } from '../config/config.js';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../db/embedded.js';

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
