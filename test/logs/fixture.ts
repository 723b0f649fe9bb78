import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import type { RequestLogEntry } from '../../src/modules/logs/log-buffer.js';
import { insertRequestLogs } from '../../src/modules/logs/log-store.js';
import { sqlOn } from '../../src/db/sql.js';
import { uuidv7 } from '../../src/shared/ids.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, type World } from '../auth/fixture.js';

export { buildWorld, createKey, person, type World } from '../auth/fixture.js';
export { expectError, UUID_SHAPE } from '../helpers/expect.js';
export { until } from '../webhooks/fixture.js';

export interface LogsEnv {
  t: TestApi;
  w: World;
  /** A pool on the test database, for direct counts and for running the rollup by hand. */
  pool: pg.Pool;
  workers: RunningWorkers;
  close(): Promise<void>;
}

/**
 * The API, a world (workspace, two projects, keys), a pool, and the log-ingest worker. Rollups
 * and retention are run by the tests themselves (their schedule is minutes and hours). Tests
 * that compare figures against the table turn the API's own request logging off, so that their
 * own calls do not land in the table while they count.
 */
export async function startLogsEnv(options: { requestLogging?: boolean } = {}): Promise<LogsEnv> {
  const t = await startTestApi({ REQUEST_LOGGING: String(options.requestLogging ?? true) });
  const w = await buildWorld(t);
  const pool = createPool(t.db.url, 4, createLogger('silent'));
  const workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['request-logs']);
  return {
    t,
    w,
    pool,
    workers,
    close: async () => {
      await workers.stop(2_000);
      await pool.end();
      await t.close();
    },
  };
}

export const logsPath = (projectId: string, query = '') => `/v1/${projectId}/logs${query ? `?${query}` : ''}`;

/** Every log entry of a project with this request id, read straight from the table. */
export async function rowsFor(pool: pg.Pool, requestIds: string[]): Promise<{ request_id: string }[]> {
  return sqlOn(pool)({ text: 'select request_id from request_log where request_id = any($1)', values: [requestIds] });
}

/** A synthetic entry, as the API would log it, at `createdAt`. */
export function entry(projectId: string, createdAt: Date, extra: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    projectId,
    requestId: uuidv7(),
    method: 'GET',
    path: `/v1/${projectId}/tables`,
    status: 200,
    durationMs: 5,
    apiKeyId: null,
    accountId: null,
    ip: '127.0.0.1',
    userAgent: 'test',
    createdAt: createdAt.getTime(),
    ...extra,
  };
}

/** Inserts synthetic entries through the worker's own bulk insert. */
export async function insertEntries(pool: pg.Pool | pg.PoolClient, entries: RequestLogEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 1000) {
    const inserted = await insertRequestLogs(sqlOn(pool), [{ id: randomUUID(), entries: entries.slice(i, i + 1000) }]);
    expect(inserted).toBe(Math.min(1000, entries.length - i));
  }
}
