import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { entry, insertEntries, logsPath, startLogsEnv, storedEntries, type LogsEnv } from './fixture.js';

/*
 * The log list merges segments whose entries interleave in time (several API processes, slow
 * requests handed over late). Pages and totals are checked against the stored entries sorted and
 * filtered in the test, for many queries over the same random data.
 */
let env: LogsEnv;
beforeAll(async () => {
  env = await startLogsEnv({ requestLogging: false });
});
afterAll(async () => {
  await env?.close();
});

const HOUR = 3_600_000;
const START = Date.UTC(2026, 9, 20, 9, 40);

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('log list over interleaved segments', () => {
  it('pages and totals equal the stored entries sorted newest first and filtered', async () => {
    const { t, w, pool } = env;
    const next = random(7);
    const pick = <T>(values: T[]) => values[Math.floor(next() * values.length)];
    // 12 hand-overs of 40 entries each, from "processes" whose clocks overlap by minutes, over
    // three clock hours; some share a millisecond (ordered by id).
    for (let handOver = 0; handOver < 12; handOver++) {
      const base = START + handOver * 15 * 60_000;
      const entries = Array.from({ length: 40 }, () =>
        entry(w.projectId, new Date(base + Math.floor(next() * 40) * 60_000 + (next() < 0.2 ? 0 : Math.floor(next() * 1000))), {
          status: pick([200, 201, 404, 500]),
          method: pick(['GET', 'POST', 'DELETE']),
          apiKeyId: pick([w.readKey.id, w.writeKey.id, null]),
        }),
      );
      await insertEntries(pool, entries);
      // Half the data folded into the rollups, half not yet.
      if (handOver === 5) await rollUpRequestLogs(pool);
    }
    const all = (await storedEntries(pool)).filter((e) => e.projectId === w.projectId);
    expect(all).toHaveLength(480);
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
      const res = await t.call('GET', logsPath(w.projectId, new URLSearchParams(query).toString()));
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
  });
});
