import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type CallOptions, type CallResult, type TestApi } from '../helpers/api.js';
import { expectError, randomSecret, tablesPath, uniq } from './fixture.js';
import { clockReaches, until } from '../helpers/until.js';

/** docs/concepts.md#rate-limits: per credential (per IP when unauthenticated), RATE_LIMIT_PER_SECOND with a burst of RATE_LIMIT_BURST. */

const RATE = 5;
const BURST = 10;

let t: TestApi;
let projectId: string;
/** Fresh read keys, one per test that spends a bucket (created up front: the admin token has a bucket too). */
const keys: string[] = [];

/** Setup calls with the admin token: wait out a 429 rather than fail. */
async function patiently(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  return until(async () => {
    const res = await t.call(method, path, options);
    return res.status !== 429 && res;
  }, 30_000, `${method} ${path} past the admin token's rate limit`, 200);
}

function expectRateHeaders(res: CallResult) {
  expect(res.headers.get('ratelimit-limit'), `${res.status} ${res.text}`).toBe(String(BURST));
  const remaining = res.headers.get('ratelimit-remaining');
  const reset = res.headers.get('ratelimit-reset');
  expect(remaining).toMatch(/^\d+$/);
  expect(reset).toMatch(/^\d+$/);
  expect(Number(remaining)).toBeLessThanOrEqual(BURST);
  expect(Number(reset)).toBeLessThanOrEqual(Math.ceil(BURST / RATE));
  return { remaining: Number(remaining), reset: Number(reset) };
}

function expect429(res: CallResult) {
  expectError(res, 429, 'RATE_LIMITED');
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(Math.ceil(BURST / RATE));
  expect(expectRateHeaders(res).remaining).toBe(0);
  return Number(retryAfter);
}

/** `n` sequential GETs of the project's tables with `token`. */
async function burst(n: number, token: string | null) {
  const out: CallResult[] = [];
  for (let i = 0; i < n; i++) out.push(await t.call('GET', tablesPath(projectId), { token }));
  return out;
}

beforeAll(async () => {
  t = await startTestApi({ RATE_LIMIT_PER_SECOND: String(RATE), RATE_LIMIT_BURST: String(BURST) });
  const ws = await patiently('POST', '/v1/workspaces', { body: { name: 'Limits' } });
  const project = await patiently('POST', `/v1/workspaces/${ws.json.id}/projects`, { body: { name: 'Limited' } });
  projectId = project.json.id;
  for (let i = 0; i < 5; i++) {
    const res = await patiently('POST', `/v1/${projectId}/api-keys`, { body: { name: uniq('k'), permission: 'read' } });
    expect(res.status, res.text).toBe(201);
    keys.push(res.json.key);
  }
});
afterAll(() => t?.close());

describe('rate limits', () => {
  it('every /v1 and /trpc response carries RateLimit-Limit, -Remaining and -Reset', async () => {
    const key = keys[0];
    const responses = [
      await t.call('GET', tablesPath(projectId), { token: key }), // 200
      await t.call('GET', `${tablesPath(projectId)}/nope`, { token: key }), // 404
      await t.call('POST', tablesPath(projectId), { token: key, body: { key: 'x', name: 'x' } }), // 403
      await t.call('GET', `/v1/${projectId}/nope/nope/nope`, { token: key }), // 404 unknown path
      await t.call('GET', `/trpc/tables.list?input=${encodeURIComponent(JSON.stringify({ projectId }))}`, { token: key }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 404, 403, 404, 200]);
    const seen = responses.map(expectRateHeaders);
    // A fresh bucket: the first request leaves burst - 1, and the count goes down as it is spent.
    expect(seen[0].remaining).toBe(BURST - 1);
    expect(seen[4].remaining).toBeLessThanOrEqual(seen[0].remaining);
    expect(seen[4].remaining).toBeGreaterThanOrEqual(BURST - 5 - 1);
  });

  it('a burst of 20 with one key: about `burst` pass, the rest are 429 RATE_LIMITED with Retry-After; after it, requests pass again', async () => {
    const key = keys[1];
    const started = Date.now();
    const results = await burst(20, key);
    const elapsed = (Date.now() - started) / 1000;
    const statuses = results.map((r) => r.status);
    expect(new Set(statuses).size, statuses.join(',')).toBe(2);
    expect(statuses.slice(0, BURST), statuses.join(',')).toEqual(Array(BURST).fill(200));
    const passed = statuses.filter((s) => s === 200).length;
    // Burst plus what refilled while the requests ran (plus one for rounding).
    expect(passed, statuses.join(',')).toBeLessThanOrEqual(BURST + Math.ceil(elapsed * RATE) + 1);
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    let retryAfter = 0;
    for (const r of refused) retryAfter = Math.max(retryAfter, expect429(r));
    for (const r of results) expectRateHeaders(r);
    await clockReaches(Date.now() + retryAfter * 1000, `Retry-After (${retryAfter} s) to pass`);
    const again = await t.call('GET', tablesPath(projectId), { token: key });
    expect(again.status, again.text).toBe(200);
    expectRateHeaders(again);
  });

  it('separate credentials have separate buckets', async () => {
    const [a, b] = [keys[2], keys[3]];
    const spent = await burst(BURST + 5, a);
    expect(spent.map((r) => r.status)).toContain(429);
    const since = Date.now();
    const other = await t.call('GET', tablesPath(projectId), { token: b });
    expect(other.status, other.text).toBe(200);
    expect(expectRateHeaders(other).remaining).toBe(BURST - 1);
    const admin = await t.call('GET', '/v1/accounts/me');
    expect(admin.status, admin.text).toBe(200);
    // The exhausted key is limited on the typed face too (one bucket per credential, not per
    // face): only what refilled since the /v1 burst may pass before a 429.
    const trpcUrl = `/trpc/tables.list?input=${encodeURIComponent(JSON.stringify({ projectId }))}`;
    let passed = 0;
    let refused: CallResult | undefined;
    while (!refused && passed < BURST) {
      const res = await t.call('GET', trpcUrl, { token: a });
      if (res.status === 429) {
        refused = res;
      } else {
        expect(res.status, res.text).toBe(200);
        passed++;
      }
    }
    expect(passed).toBeLessThanOrEqual(Math.ceil(((Date.now() - since) / 1000) * RATE) + 1);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('unauthenticated requests are limited per client IP: after the burst they are 429, not 401', async () => {
    const started = Date.now();
    const results = await burst(20, null);
    const statuses = results.map((r) => r.status);
    expect(statuses.slice(0, BURST), statuses.join(',')).toEqual(Array(BURST).fill(401));
    expect(statuses, statuses.join(',')).toContain(429);
    for (const r of results) {
      if (r.status === 401) {
        expectError(r, 401, 'UNAUTHORIZED');
        expectRateHeaders(r);
      } else {
        expect429(r);
      }
    }
    // Unknown credentials count against the same IP bucket: they too are 429, apart from what refilled.
    const unknown = await burst(5, randomSecret('tak_'));
    const elapsed = (Date.now() - started) / 1000;
    const all = [...statuses, ...unknown.map((r) => r.status)];
    expect(unknown.map((r) => r.status)).toContain(429);
    expect(all.filter((s) => s === 401).length, all.join(',')).toBeLessThanOrEqual(BURST + Math.ceil(elapsed * RATE) + 1);
    // A valid credential from that IP has its own bucket.
    const valid = await t.call('GET', tablesPath(projectId), { token: keys[4] });
    expect(valid.status, valid.text).toBe(200);
  });
});
