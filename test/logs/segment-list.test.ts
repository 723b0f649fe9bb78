import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/pool.js';
import { sqlOn } from '../../src/db/sql.js';
import { compactLogSegments, rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { createLogger } from '../../src/shared/logger.js';
import { entry, HOUR, insertEntries, logsEnvForFile, logsPath, storedEntries } from './fixture.js';

/*
 * The log list merges segments whose entries interleave in time (several API processes, slow
 * requests handed over late). Pages and totals are checked against the stored entries sorted and
 * filtered in the test, for many queries over the same random data, before and after the small
 * segments are merged.
 */
const env = logsEnvForFile({ requestLogging: false });

const START = Date.UTC(2026, 9, 20, 9, 40);

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * 12 hand-overs of 40 entries each from "processes" whose clocks overlap by minutes, over three
 * clock hours; some entries share a millisecond (then ordered by id). Half is rolled up.
 */
async function insertInterleaved(projectId: string): Promise<void> {
  const { w, pool } = env;
  const next = random(7);
  const pick = <T>(values: T[]) => values[Math.floor(next() * values.length)];
  for (let handOver = 0; handOver < 12; handOver++) {
    const base = START + handOver * 15 * 60_000;
    const entries = Array.from({ length: 40 }, () =>
      entry(projectId, new Date(base + Math.floor(next() * 40) * 60_000 + (next() < 0.2 ? 0 : Math.floor(next() * 1000))), {
        status: pick([200, 201, 404, 500]),
        method: pick(['GET', 'POST', 'DELETE']),
        apiKeyId: pick([w.readKey.id, w.writeKey.id, null]),
      }),
    );
    await insertEntries(pool, entries);
    if (handOver === 5) await rollUpRequestLogs(pool);
  }
}

/** Pages and totals of many queries against the stored entries, sorted and filtered here. */
async function expectListsMatch(projectId: string): Promise<void> {
  const { t, w, pool } = env;
  const all = (await storedEntries(pool)).filter((e) => e.projectId === projectId);
  all.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  const iso = (ms: number) => new Date(ms).toISOString();
  const queries: Record<string, string>[] = [
    { size: '7' },
    { size: '7', page: '3' },
    { size: '50', page: '5' },
    { size: '1000' },
    { size: '13', page: '2', status: '404' },
    { size: '9', page: '4', method: 'POST', apiKeyId: w.writeKey.id },
    { size: '20', from: iso(START + 30 * 60_000), to: iso(START + 2 * HOUR + 7 * 60_000 + 123) },
    { size: '5', page: '6', from: iso(START + 25 * 60_000 + 1), to: iso(START + 50 * 60_000), status: '200' },
    { size: '20', from: iso(START + HOUR / 3), to: iso(START + HOUR / 3) },
    { size: '3', page: '200' },
  ];
  for (const query of queries) {
    const res = await t.call('GET', logsPath(projectId, new URLSearchParams(query).toString()));
    expect(res.status, res.text).toBe(200);
    const from = query.from ? Date.parse(query.from) : -Infinity;
    const to = query.to ? Date.parse(query.to) : Infinity;
    const matching = all.filter(
      (e) =>
        e.createdAt >= from &&
        e.createdAt <= to &&
        (!query.status || e.status === Number(query.status)) &&
        (!query.method || e.method === query.method) &&
        (!query.apiKeyId || e.apiKeyId === query.apiKeyId),
    );
    const size = Number(query.size);
    const page = Number(query.page ?? 1);
    const expected = matching.slice((page - 1) * size, page * size);
    expect(res.json.list.map((e: { id: string }) => e.id), JSON.stringify(query)).toEqual(expected.map((e) => e.id));
    expect(res.json.pagination, JSON.stringify(query)).toEqual({
      page,
      size,
      total: matching.length,
      pages: Math.ceil(matching.length / size),
      hasNext: matching.length > page * size,
    });
  }
}

describe('log list over interleaved segments', () => {
  it('pages and totals equal the stored entries sorted newest first and filtered', async () => {
    await insertInterleaved(env.w.projectId);
    expect((await storedEntries(env.pool)).filter((e) => e.projectId === env.w.projectId)).toHaveLength(480);
    await expectListsMatch(env.w.projectId);
  });

  it('small segments of past hours are merged: same entries, ids, pages, totals and rollups, even with two runs at once', async () => {
    const { w, pool } = env;
    // A quiet project: a hand-over of two entries a minute, for half an hour.
    for (let i = 0; i < 30; i++) {
      await insertEntries(pool, [0, 1].map((k) => entry(w.otherProjectId, new Date(START + 3 * HOUR + 20 * 60_000 + i * 60_000 + k), { status: k ? 404 : 200 })));
    }
    await rollUpRequestLogs(pool);
    const segments = async (projectId: string) =>
      (await sqlOn(pool)<{ n: number }>({ text: 'select count(*)::int as n from request_log_segment where project_id = $1', values: [projectId] }))[0].n;
    const rollups = () => sqlOn(pool)({ text: 'select * from request_rollup order by project_id, bucket, method, status, api_key_id', values: [] });
    const before = { entries: await storedEntries(pool), busy: await segments(w.projectId), rollups: await rollups() };
    expect(await segments(w.otherProjectId)).toBe(30);

    const other = createPool(env.t.db.url, 2, createLogger('silent'));
    const runs = await Promise.all([compactLogSegments(pool), compactLogSegments(other)]).finally(() => other.end());
    const merged = runs.reduce((n, r) => n + r.merged, 0);
    const into = runs.reduce((n, r) => n + r.into, 0);
    // One segment per project and hour now: the quiet project's half hour, and the hours of the
    // first test's project (40 entries per hand-over) too.
    const hours = new Set(before.entries.filter((e) => e.projectId === w.projectId).map((e) => Math.floor(e.createdAt / HOUR))).size;
    expect(await segments(w.otherProjectId)).toBe(1);
    expect(await segments(w.projectId)).toBe(hours);
    expect(merged - into).toBe(30 - 1 + before.busy - hours);

    const byId = (list: typeof before.entries) => [...list].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(byId(await storedEntries(pool))).toEqual(byId(before.entries));
    // Merged segments are not folded in again, and a second run finds nothing to merge.
    expect((await rollUpRequestLogs(pool)).folded).toBe(0);
    expect(await rollups()).toEqual(before.rollups);
    expect((await compactLogSegments(pool)).merged).toBe(0);
    await expectListsMatch(w.projectId);
    await expectListsMatch(w.otherProjectId);
  });
});
