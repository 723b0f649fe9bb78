import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { createKey, createProject, createWorkspace, expectError, tablesPath, type ApiKeyRecord } from './fixture.js';
import { startChildProcess, startInProcess, type SecondApi } from './second-process.js';
import { until } from '../helpers/until.js';

/**
 * Two API processes on one database (docs/concepts.md#rate-limits: the limit holds across processes; a deleted
 * key is refused at once). Process 1 is `t`; process 2 is another server in this node process and,
 * separately, a real child process (`node dist/src/api.js`, the compiled API).
 */

const RATE = 10;
const BURST = 40;
/** A tenth of a second's worth of tokens may sit unspent in each process's lease. */
const LEASE = Math.max(1, Math.floor(RATE / 10));
const ENV = { RATE_LIMIT_PER_SECOND: String(RATE), RATE_LIMIT_BURST: String(BURST) };
/** How soon a change made through one process must show on the other. */
const PROPAGATION_MS = 1000;

let t: TestApi;
let workspaceId: string;
let projectId: string;
const seconds: SecondApi[] = [];

beforeAll(async () => {
  t = await startTestApi(ENV);
  const started = await Promise.allSettled([startInProcess(t, ENV), startChildProcess(t, ENV)]);
  for (const s of started) if (s.status === 'fulfilled') seconds.push(s.value);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  workspaceId = await createWorkspace(t, 'Two processes');
  projectId = await createProject(t, workspaceId, 'Shared');
});
afterAll(async () => {
  await Promise.allSettled(seconds.map((s) => s.close()));
  await t?.close();
});

/**
 * Calls `probe` every 50 ms from `since` until its status is `target`; every status before
 * must be in `allowed`. Returns the milliseconds from `since` to the first `target` answer.
 */
async function msUntil(since: number, probe: () => Promise<CallResult>, target: number, allowed: number[]): Promise<number> {
  let at = 0;
  await until(async () => {
    const res = await probe();
    at = Date.now() - since;
    if (res.status === target) return true;
    expect(allowed, `unexpected ${res.status} ${res.text} after ${at} ms`).toContain(res.status);
    if (at > PROPAGATION_MS + 500) throw new Error(`still ${res.status} ${at} ms after the change`);
    return false;
  }, PROPAGATION_MS + 5_000, `${target} after the change`, 50);
  return at;
}

describe.each([
  { index: 0, label: 'in-process server' },
  { index: 1, label: 'child process' },
])('process 2 = $label', ({ index }) => {
  const p2 = () => seconds[index];
  const keyPath = (k: ApiKeyRecord) => `/v1/${projectId}/api-keys/${k.id}`;
  const list2 = (token: string) => p2().call('GET', tablesPath(projectId), { token });

  it('serves the same database: a key created through process 1 works on process 2 at once', async () => {
    const k = await createKey(t, projectId, 'read');
    const res = await list2(k.key);
    expect(res.status, res.text).toBe(200);
    const listed = await p2().call('GET', `/v1/${projectId}/api-keys?size=1000`);
    expect(listed.json.list.map((x: { id: string }) => x.id)).toContain(k.id);
  });

  it('the rate limit is shared: alternating requests never get 2 × burst through', async () => {
    const k = await createKey(t, projectId, 'read');
    const servers = [t.call, p2().call];
    const started = Date.now();
    const statuses: number[][] = [[], []];
    for (let i = 0; i < 2 * BURST; i++) {
      const res = await servers[i % 2]('GET', tablesPath(projectId), { token: k.key });
      statuses[i % 2].push(res.status);
      if (res.status === 429) {
        expectError(res, 429, 'RATE_LIMITED');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } else {
        expect(res.status, res.text).toBe(200);
      }
      expect(res.headers.get('ratelimit-limit')).toBe(String(BURST));
    }
    const elapsed = (Date.now() - started) / 1000;
    const passed = statuses.flat().filter((s) => s === 200).length;
    const detail = `passed ${passed} in ${elapsed.toFixed(2)} s; p1 ${statuses[0].join('')}; p2 ${statuses[1].join('')}`;
    expect(passed, detail).toBeLessThanOrEqual(BURST + Math.ceil(elapsed * RATE) + 2 * LEASE + 1);
    expect(passed, detail).toBeLessThan(2 * BURST);
    expect(passed, detail).toBeGreaterThanOrEqual(BURST - 2 * LEASE);
    // Both processes took part, and both refused once the shared bucket was empty.
    for (const s of statuses) {
      expect(s, detail).toContain(200);
      expect(s, detail).toContain(429);
    }
  });

  it('a key deleted through process 1 is refused (401) by process 2 within 1 s', async () => {
    const k = await createKey(t, projectId, 'read_write');
    expect((await list2(k.key)).status).toBe(200); // process 2 has it cached now
    const del = await t.call('DELETE', keyPath(k));
    expect(del.status, del.text).toBe(204);
    const ms = await msUntil(Date.now(), () => list2(k.key), 401, [200]);
    expect(ms).toBeLessThan(PROPAGATION_MS);
    expectError(await list2(k.key), 401, 'UNAUTHORIZED');
  });

  it('deactivation through process 1 shows on process 2 within 1 s, and so does reactivation', async () => {
    const k = await createKey(t, projectId, 'read');
    expect((await list2(k.key)).status).toBe(200);
    const off = await t.call('PUT', keyPath(k), { body: { active: false } });
    expect(off.status, off.text).toBe(200);
    expect(await msUntil(Date.now(), () => list2(k.key), 401, [200])).toBeLessThan(PROPAGATION_MS);
    expectError(await list2(k.key), 401, 'UNAUTHORIZED');
    const on = await t.call('PUT', keyPath(k), { body: { active: true } });
    expect(on.status, on.text).toBe(200);
    expect(await msUntil(Date.now(), () => list2(k.key), 200, [401])).toBeLessThan(PROPAGATION_MS);
  });

  it('a change made through process 2 shows on process 1 within 1 s (deactivation)', async () => {
    const k = await createKey(t, projectId, 'read');
    expect((await t.call('GET', tablesPath(projectId), { token: k.key })).status).toBe(200);
    const off = await p2().call('PUT', keyPath(k), { body: { active: false } });
    expect(off.status, off.text).toBe(200);
    const ms = await msUntil(Date.now(), () => t.call('GET', tablesPath(projectId), { token: k.key }), 401, [200]);
    expect(ms).toBeLessThan(PROPAGATION_MS);
  });

  it('rotation with graceSeconds 0 through process 1: the old value is refused by process 2 within 1 s', async () => {
    const k = await createKey(t, projectId, 'read');
    expect((await list2(k.key)).status).toBe(200);
    const rotated = await t.call('POST', `${keyPath(k)}/rotate`, { body: { graceSeconds: 0 } });
    expect(rotated.status, rotated.text).toBe(200);
    expect(await msUntil(Date.now(), () => list2(k.key), 401, [200])).toBeLessThan(PROPAGATION_MS);
    expect((await list2(rotated.json.key)).status).toBe(200);
  });

  it('a permission downgrade through process 1 shows on process 2 within 1 s', async () => {
    const k = await createKey(t, projectId, 'read_write');
    // PUT on a missing table: 404 with write rights, 403 without; nothing is ever changed.
    const write2 = () => p2().call('PUT', `${tablesPath(projectId)}/no_such_table`, { token: k.key, body: { name: 'x' } });
    expect((await write2()).status).toBe(404);
    const down = await t.call('PUT', keyPath(k), { body: { permission: 'read' } });
    expect(down.status, down.text).toBe(200);
    expect(await msUntil(Date.now(), write2, 403, [404])).toBeLessThan(PROPAGATION_MS);
    expectError(await write2(), 403, 'FORBIDDEN');
  });

  it('a key switched to a custom role through process 1 shows on process 2 within 1 s, and back (docs/roles.md#granting-a-role)', async () => {
    const k = await createKey(t, projectId, 'read_write');
    const role = await t.call('POST', `/v1/${projectId}/roles`, { body: { name: `reader-${index}`, rules: [{ table: '*', actions: ['read'] }] } });
    expect(role.status, role.text).toBe(201);
    // Request logs: read_write keys yes, a custom role no.
    const logs2 = () => p2().call('GET', `/v1/${projectId}/logs`, { token: k.key });
    expect((await logs2()).status).toBe(200);
    const toRole = await t.call('PUT', keyPath(k), { body: { roleId: role.json.id } });
    expect(toRole.status, toRole.text).toBe(200);
    expect(await msUntil(Date.now(), logs2, 403, [200])).toBeLessThan(PROPAGATION_MS);
    expect((await list2(k.key)).status).toBe(200);
    const back = await t.call('PUT', keyPath(k), { body: { permission: 'read_write' } });
    expect(back.status, back.text).toBe(200);
    expect(await msUntil(Date.now(), logs2, 200, [403])).toBeLessThan(PROPAGATION_MS);
  });

  it('a project deleted through process 1: on process 2 its keys are 401 and accounts get 404 within 1 s', async () => {
    const pid = await createProject(t, workspaceId, 'Doomed');
    const k = await createKey(t, pid, 'read');
    const keyOn2 = () => p2().call('GET', tablesPath(pid), { token: k.key });
    const adminOn2 = () => p2().call('GET', tablesPath(pid));
    expect((await keyOn2()).status).toBe(200);
    expect((await adminOn2()).status).toBe(200);
    const del = await t.call('DELETE', `/v1/workspaces/${workspaceId}/projects/${pid}`);
    expect(del.status, del.text).toBe(204);
    const since = Date.now();
    expect(await msUntil(since, keyOn2, 401, [200])).toBeLessThan(PROPAGATION_MS);
    expect(await msUntil(since, adminOn2, 404, [200])).toBeLessThan(PROPAGATION_MS);
  });
});
