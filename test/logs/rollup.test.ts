import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { sqlOn } from '../../src/db/sql.js';
import { deleteExpiredLogs, insertLogSegments, rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { buildSegments } from '../../src/modules/logs/log-segment.js';
import { createLogger } from '../../src/shared/logger.js';
import { loadConfig } from '../../src/config/config.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { logJob } from '../../src/modules/logs/log-wire.js';
import { startWorkers } from '../../workers/workers.js';
import { entry, HOUR, insertEntries, logsEnvForFile, logsPath, materializeLogs, rowsFor, storedEntries } from './fixture.js';
import { until } from '../helpers/until.js';

const env = logsEnvForFile({ requestLogging: false });

/** A fixed past day, so that the hours below are whole and stable. */
const DAY = Date.UTC(2026, 10, 1);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
const STATUSES = [200, 201, 404, 422, 500];

/** `count` entries spread over 30 hours of DAY, with varied methods, statuses, keys and latencies. */
function spread(projectId: string, keyId: string, count: number, seed: number) {
  return Array.from({ length: count }, (_, i) =>
    entry(projectId, new Date(DAY + ((i * 7919 + seed) % (30 * HOUR))), {
      method: METHODS[(i + seed) % METHODS.length],
      status: STATUSES[(i * 3 + seed) % STATUSES.length],
      apiKeyId: i % 2 === 0 ? keyId : null,
      durationMs: ((i * 37) % 500) + 0.5,
    }),
  );
}

/** What the rollups hold, by (project, hour, key, method, status), against a direct count of raw logs. */
async function rollupsAgainstRaw() {
  const sql = sqlOn(env.pool);
  await materializeLogs(env.pool);
  const group = `project_id, api_key_id, method, status`;
  const rolled = await sql({ text: `select ${group}, bucket, requests::int from request_rollup order by 1, 2, 3, 4, 5`, values: [] });
  const raw = await sql({
    text: `select ${group}, date_trunc('hour', created_at) as bucket, count(*)::int as requests from raw_request_log
            group by ${group}, bucket order by 1, 2, 3, 4, 5`,
    values: [],
  });
  return { rolled, raw };
}

describe('ingest', () => {
  it('skips segments delivered twice (a job retried after its insert committed)', async () => {
    const { w, pool } = env;
    const entries = [entry(w.projectId, new Date(DAY)), entry(w.projectId, new Date(DAY + 1)), entry(w.otherProjectId, new Date(DAY + 2))];
    const segments = await buildSegments(entries);
    expect(segments).toHaveLength(2);
    expect(await insertLogSegments(sqlOn(pool), segments)).toBe(3);
    expect(await insertLogSegments(sqlOn(pool), segments)).toBe(0);
    expect(await rowsFor(pool, entries.map((e) => e.requestId))).toHaveLength(3);
  });

  it('cuts a hand-over into segments by project and clock hour, ids stable across reads', async () => {
    const { w, pool } = env;
    const at = DAY + 7 * HOUR;
    const entries = [at - 2, at - 1, at, at + 1].map((t) => entry(w.projectId, new Date(t), { requestId: `cut-${t}` }));
    const segments = await buildSegments(entries);
    expect(segments.map((s) => [s.entries, s.firstAt, s.lastAt])).toEqual([
      [2, at - 2, at - 1],
      [2, at, at + 1],
    ]);
    await insertLogSegments(sqlOn(pool), segments);
    const read = async () => (await storedEntries(pool)).filter((e) => e.requestId.startsWith('cut-'));
    const first = await read();
    expect(first.map((e) => e.requestId).sort()).toEqual(entries.map((e) => e.requestId).sort());
    expect(new Set(first.map((e) => e.id)).size).toBe(4);
    expect(await read()).toEqual(first);
  });

  it('a backlog drains at once: a full batch of jobs is followed by the next without waiting for a poll', async () => {
    const { w, pool, t } = env;
    // 60 jobs queued in one go (a worker back from a restart finds such a backlog): one NOTIFY,
    // three fetches of 20. Without bursting, each further fetch waited for the 30 s backstop poll.
    const jobs = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => ({ data: logJob(await buildSegments([entry(w.projectId, new Date(DAY + 2 * HOUR), { requestId: `backlog-${i}` })])) })),
    );
    await t.api.deps.boss.insert(QUEUES.requestLogs.name, jobs);
    const count = async () => (await storedEntries(pool)).filter((e) => e.requestId.startsWith('backlog-')).length;
    await until(async () => (await count()) === 60, 10_000);
  });

  it('drops entries of unknown projects', async () => {
    const unknown = entry('0190b0a0-0000-7000-8000-000000000000', new Date(DAY));
    expect(await insertLogSegments(sqlOn(env.pool), await buildSegments([unknown]))).toBe(0);
  });
});

describe('rollups', () => {
  it('match a direct count over the raw logs, and a second run adds nothing', async () => {
    const { w, pool } = env;
    await insertEntries(pool, spread(w.projectId, w.readKey.id, 3000, 1));
    await insertEntries(pool, spread(w.otherProjectId, w.writeKey.id, 500, 2));
    expect((await rollUpRequestLogs(pool)).folded).toBeGreaterThanOrEqual(3500);
    const { rolled, raw } = await rollupsAgainstRaw();
    expect(rolled).toEqual(raw);
    expect((await rollUpRequestLogs(pool)).folded).toBe(0);
    expect((await rollupsAgainstRaw()).rolled).toEqual(raw);
  });

  it('do not double count when several runs race each other and the inserts', async () => {
    const { w, pool } = env;
    const other = createPool(env.t.db.url, 4, createLogger('silent'));
    try {
      const inserts = (async () => {
        for (let round = 0; round < 10; round++) await insertEntries(pool, spread(w.projectId, w.readKey.id, 200, 100 + round));
      })();
      const runs = (async () => {
        for (let round = 0; round < 10; round++) await Promise.all([rollUpRequestLogs(pool), rollUpRequestLogs(other), rollUpRequestLogs(other)]);
      })();
      await Promise.all([inserts, runs]);
      await Promise.all([rollUpRequestLogs(pool), rollUpRequestLogs(other)]);
      const { rolled, raw } = await rollupsAgainstRaw();
      expect(rolled).toEqual(raw);
    } finally {
      await other.end();
    }
  });

  it('wait for an insert in progress, and count its rows exactly once', async () => {
    const { w, pool } = env;
    const client = await pool.connect();
    try {
      await client.query('begin');
      // A slow inserter: its rows are written but not committed while a rollup starts.
      await insertEntries(client, [entry(w.projectId, new Date(DAY + HOUR), { status: 503 })]);
      let finished = false;
      const run = rollUpRequestLogs(pool).then((result) => {
        finished = true;
        return result;
      });
      // The rollup is queued behind the insert: its SHARE lock on the segment table waits.
      await until(async () => {
        const { rows } = await pool.query(
          `select count(*)::int as n from pg_locks where relation = 'request_log_segment'::regclass and mode = 'ShareLock' and not granted`,
        );
        return rows[0].n > 0;
      }, 10_000, 'the rollup to wait for the insert in progress');
      expect(finished).toBe(false);
      await client.query('commit');
      expect((await run).folded).toBe(1);
    } finally {
      client.release();
    }
    const { rolled, raw } = await rollupsAgainstRaw();
    expect(rolled).toEqual(raw);
  });

  it('a second run right after folds nothing new', async () => {
    expect((await rollUpRequestLogs(env.pool)).folded).toBe(0);
  });
});

describe('log totals', () => {
  /** The list total against count(*) over the same filter, straight from the table. */
  async function expectTotalsMatch(query: Record<string, string>) {
    const { t, w, pool } = env;
    const params = new URLSearchParams({ size: '1', ...query });
    const res = await t.call('GET', logsPath(w.projectId, params.toString()));
    expect(res.status, res.text).toBe(200);
    const where = ['project_id = $1'];
    const values: unknown[] = [w.projectId];
    const add = (sql: string, value: unknown) => {
      values.push(value);
      where.push(sql.replace('?', `$${values.length}`));
    };
    if (query.from) add('created_at >= ?', query.from);
    if (query.to) add('created_at <= ?', query.to);
    if (query.status) add('status = ?', Number(query.status));
    if (query.method) add('method = ?', query.method);
    if (query.apiKeyId) add('api_key_id = ?', query.apiKeyId);
    await materializeLogs(pool);
    const [{ n }] = await sqlOn(pool)<{ n: number }>({ text: `select count(*)::int as n from raw_request_log where ${where.join(' and ')}`, values });
    expect(res.json.pagination.total, JSON.stringify(query)).toBe(n);
  }

  it('are exact for whole hours, partial hours, and rows not rolled up yet', async () => {
    const { w, pool } = env;
    await rollUpRequestLogs(pool);
    // Some rows stay above the watermark.
    await insertEntries(pool, spread(w.projectId, w.readKey.id, 300, 999));
    const at = (hours: number, minutes = 0) => new Date(DAY + hours * HOUR + minutes * 60_000).toISOString();
    const cases: Record<string, string>[] = [
      {},
      { from: at(0) },
      { from: at(2, 17), to: at(9, 41) },
      { from: at(3), to: at(5) },
      { from: at(4, 10), to: at(4, 50) },
      { to: at(12, 30) },
      { from: at(1, 1), to: at(20), status: '404' },
      { method: 'POST', from: at(5, 5) },
      { apiKeyId: w.readKey.id, to: at(25, 59) },
      { apiKeyId: w.readKey.id, status: '500', method: 'DELETE' },
    ];
    for (const query of cases) await expectTotalsMatch(query);
  });

  it('stay exact after retention removed old logs (rollups keep the history)', async () => {
    const { w, pool } = env;
    const now = Date.now();
    await insertEntries(pool, [
      entry(w.projectId, new Date(now - 40 * 24 * HOUR)),
      entry(w.projectId, new Date(now - 31 * 24 * HOUR)),
      entry(w.projectId, new Date(now - 2 * HOUR)),
    ]);
    await rollUpRequestLogs(pool);
    const removed = await deleteExpiredLogs(pool, 30);
    expect(removed).toBeGreaterThanOrEqual(2);
    await materializeLogs(pool);
    const [{ old }] = await sqlOn(pool)<{ old: number }>({
      text: `select count(*)::int as old from raw_request_log where created_at < now() - interval '30 days 1 hour'`,
      values: [],
    });
    expect(old).toBe(0);
    // Rows inside the retention window are kept.
    const [{ recent }] = await sqlOn(pool)<{ recent: number }>({
      text: `select count(*)::int as recent from raw_request_log where project_id = $1 and created_at > now() - interval '3 hours'`,
      values: [w.projectId],
    });
    expect(recent).toBeGreaterThanOrEqual(1);
    await expectTotalsMatch({});
    await expectTotalsMatch({ from: new Date(now - 60 * 24 * HOUR).toISOString() });
  });
});

describe('scheduled jobs', () => {
  it('the log-rollup and log-retention workers run their queued jobs', async () => {
    const { t, w, pool } = env;
    const workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['log-rollup', 'log-retention']);
    try {
      await insertEntries(pool, [entry(w.projectId, new Date(Date.now() - 90 * 24 * HOUR)), entry(w.projectId, new Date())]);
      const state = async () =>
        (await sqlOn(pool)<{ rolled_up_at: string | null; watermark: string }>({ text: 'select rolled_up_at, watermark from request_rollup_state', values: [] }))[0];
      const before = await state();
      // What the cron schedules send: the rollup every minute, retention every hour.
      await t.api.deps.boss.send(QUEUES.logRollup.name, {});
      await until(async () => {
        const now = await state();
        return now.rolled_up_at !== before.rolled_up_at && BigInt(now.watermark) > BigInt(before.watermark);
      });
      await t.api.deps.boss.send(QUEUES.logRetention.name, {});
      await until(async () => {
        const cutoff = Date.now() - 60 * 24 * HOUR;
        return (await storedEntries(pool)).every((e) => e.createdAt >= cutoff);
      });
      // The fresh entry is in this hour's rollup; the 90-day-old one is gone from the raw logs only.
      const [{ recent, old }] = await sqlOn(pool)<{ recent: number; old: number }>({
        text: `select coalesce(sum(requests) filter (where bucket > now() - interval '2 hours'), 0)::int as recent,
                      coalesce(sum(requests) filter (where bucket < now() - interval '60 days'), 0)::int as old
                 from request_rollup where project_id = $1`,
        values: [w.projectId],
      });
      expect(recent).toBeGreaterThanOrEqual(1);
      expect(old).toBe(1);
    } finally {
      await workers.stop(2_000);
    }
  });
});
