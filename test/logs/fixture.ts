import type pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import type { RequestLogEntry } from '../../src/modules/logs/log-buffer.js';
import { insertLogSegments } from '../../src/modules/logs/log-store.js';
import { buildSegments, readSegment, type StoredLogEntry } from '../../src/modules/logs/log-segment.js';
import { sqlOn } from '../../src/db/sql.js';
import { uuidv7 } from '../../src/shared/ids.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, type World } from '../auth/fixture.js';

export { buildWorld, createKey, person, type World } from '../auth/fixture.js';
export { expectError, UUID_SHAPE } from '../helpers/expect.js';
export { HOUR_MS as HOUR } from '../../src/modules/logs/log-segment.js';

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

/**
 * The logs env of a test file: started before its tests, closed after them. `beforeAll` fills
 * the object in, so tests read its fields when they run.
 */
export function logsEnvForFile(options: { requestLogging?: boolean } = {}): LogsEnv {
  const env = {} as LogsEnv;
  beforeAll(async () => {
    Object.assign(env, await startLogsEnv(options));
  });
  afterAll(async () => {
    await env.close?.();
  });
  return env;
}

export const logsPath = (projectId: string, query = '') => `/v1/${projectId}/logs${query ? `?${query}` : ''}`;

/** Every stored log entry, decoded from its segment. */
export async function storedEntries(db: pg.Pool | pg.PoolClient): Promise<(StoredLogEntry & { projectId: string })[]> {
  const { rows } = await db.query<{ id: string; project_id: string; payload: Buffer }>('select id, project_id, payload from request_log_segment');
  const entries: (StoredLogEntry & { projectId: string })[] = [];
  for (const segment of rows) {
    for (const e of await readSegment(segment.id, segment.payload)) entries.push({ ...e, projectId: segment.project_id });
  }
  return entries;
}

/** The entries with these request ids, as stored (once each, unless stored twice). */
export async function rowsFor(pool: pg.Pool, requestIds: string[]): Promise<{ request_id: string }[]> {
  const wanted = new Set(requestIds);
  return (await storedEntries(pool)).filter((e) => wanted.has(e.requestId)).map((e) => ({ request_id: e.requestId }));
}

/**
 * Every stored entry as a row of the table `raw_request_log` (the columns of the old row-per-
 * request table), made afresh, so that tests can count over the raw logs with plain SQL.
 */
export async function materializeLogs(pool: pg.Pool): Promise<void> {
  const entries = await storedEntries(pool);
  const sql = sqlOn(pool);
  await sql({
    text: `drop table if exists raw_request_log;
           create table raw_request_log (id uuid, project_id uuid, request_id text, method text, status smallint,
             duration_ms float8, api_key_id uuid, created_at timestamptz)`,
    values: [],
  });
  for (let i = 0; i < entries.length; i += 5000) {
    await sql({
      text: `insert into raw_request_log
             select id, "projectId", "requestId", method, status, "durationMs", "apiKeyId", timestamptz 'epoch' + "createdAt" * interval '1 millisecond'
               from jsonb_to_recordset($1::jsonb) as e(id uuid, "projectId" uuid, "requestId" text, method text, status smallint,
                    "durationMs" float8, "apiKeyId" uuid, "createdAt" float8)`,
      values: [JSON.stringify(entries.slice(i, i + 5000))],
    });
  }
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
    const inserted = await insertLogSegments(sqlOn(pool), await buildSegments(entries.slice(i, i + 1000)));
    expect(inserted).toBe(Math.min(1000, entries.length - i));
  }
}
