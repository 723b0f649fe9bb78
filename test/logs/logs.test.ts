import { describe, expect, it } from 'vitest';
import { startApi } from '../../src/server.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { clientFor } from '../helpers/api.js';
import { person } from '../auth/fixture.js';
import { expectError, logsEnvForFile, logsPath, rowsFor, UUID_SHAPE } from './fixture.js';
import { until } from '../helpers/until.js';

const env = logsEnvForFile();

const uniqueIds = (count: number, label: string) => Array.from({ length: count }, (_, i) => `${label}-${process.pid}-${i}`);

describe('request logging', () => {
  it('logs a burst of requests once each, with every field, refused ones included', async () => {
    const { t, w } = env;
    const ids = uniqueIds(150, 'burst');
    const results = await Promise.all(
      ids.map((id, i) => {
        const headers = { 'x-request-id': id, 'user-agent': 'burst-test/1.0' };
        if (i % 3 === 0) return t.call('GET', `/v1/${w.projectId}/tables`, { token: w.readKey.key, headers });
        if (i % 3 === 1) return t.call('GET', `/v1/${w.projectId}/tables/nope`, { headers });
        return t.call('GET', `/v1/${w.projectId}/tables`, { token: 'tat_invalid', headers });
      }),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(50).fill(200), ...Array(50).fill(401), ...Array(50).fill(404)]);

    // Nothing lost, nothing duplicated: exactly one row per request id.
    await until(async () => (await rowsFor(env.pool, ids)).length >= ids.length);
    const rows = await rowsFor(env.pool, ids);
    expect(rows.length).toBe(ids.length);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(ids.length);

    const res = await t.call('GET', logsPath(w.projectId, 'size=1000'));
    expect(res.status).toBe(200);
    const mine = (res.json.list as Record<string, unknown>[]).filter((e) => ids.includes(e.requestId as string));
    expect(mine.length).toBe(ids.length);
    const byKey = mine.find((e) => e.requestId === ids[0])!;
    expect(byKey).toEqual({
      id: expect.stringMatching(UUID_SHAPE),
      requestId: ids[0],
      method: 'GET',
      path: `/v1/${w.projectId}/tables`,
      status: 200,
      durationMs: expect.any(Number),
      apiKeyId: w.readKey.id,
      accountId: null,
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: 'burst-test/1.0',
      stream: false,
      console: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const byAccount = mine.find((e) => e.requestId === ids[1])!;
    expect(byAccount).toMatchObject({ status: 404, apiKeyId: null, accountId: expect.stringMatching(UUID_SHAPE) });
    expect(mine.find((e) => e.requestId === ids[2])).toMatchObject({ status: 401, apiKeyId: null, accountId: null });
  });

  it('logs tRPC calls under the project they name', async () => {
    const { t, w } = env;
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId }));
    const res = await fetch(`${t.url}/trpc/tables.list?input=${input}`, {
      headers: { authorization: `Bearer ${w.writeKey.key}`, 'x-request-id': `trpc-${process.pid}` },
    });
    expect(res.status).toBe(200);
    await until(async () => (await rowsFor(env.pool, [`trpc-${process.pid}`])).length === 1);
    const list = await t.call('GET', logsPath(w.projectId, `apiKeyId=${w.writeKey.id}&method=GET`));
    expect(list.json.list.some((e: { path: string }) => e.path.startsWith('/trpc/tables.list'))).toBe(true);
  });

  it('does not log requests that name no project', async () => {
    const { t } = env;
    const id = `noproject-${process.pid}`;
    await t.call('GET', '/v1/accounts/me', { headers: { 'x-request-id': id } });
    await t.call('GET', `/v1/not-a-uuid/tables`, { headers: { 'x-request-id': id } });
    // Sentinel: a later request of a project goes through the same buffer; once it is stored,
    // the two before it would be too.
    const sentinel = `${id}-sentinel`;
    await t.call('GET', `/v1/${env.w.projectId}/tables`, { headers: { 'x-request-id': sentinel } });
    await until(async () => (await rowsFor(env.pool, [sentinel])).length === 1, 10_000, 'the sentinel log entry');
    expect(await rowsFor(env.pool, [id])).toEqual([]);
  });

  it('flushes the buffer on graceful shutdown: every request of a stopped API is logged', async () => {
    const { t, w } = env;
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '20000' });
    const second = await startApi(config, t.db.url, createLogger('silent'));
    const call = clientFor(second.url, t.adminToken);
    const ids = uniqueIds(120, 'shutdown');
    await Promise.all(ids.map((id) => call('GET', `/v1/${w.projectId}/variables`, { headers: { 'x-request-id': id } })));
    // At once: most entries are still in the buffer (it hands over every 500 ms).
    await second.close();
    await until(async () => (await rowsFor(env.pool, ids)).length >= ids.length);
    expect((await rowsFor(env.pool, ids)).length).toBe(ids.length);
  });
});

describe('GET /{projectId}/logs', () => {
  it('filters by status, method, apiKeyId and time, newest first', async () => {
    const { t, w } = env;
    const started = new Date();
    const ids = uniqueIds(6, 'filters');
    await t.call('POST', `/v1/${w.projectId}/variables`, { token: w.writeKey.key, body: { key: `f_${process.pid}`, value: 1 }, headers: { 'x-request-id': ids[0] } });
    await t.call('GET', `/v1/${w.projectId}/variables`, { token: w.readKey.key, headers: { 'x-request-id': ids[1] } });
    await t.call('DELETE', `/v1/${w.projectId}/tables/missing`, { headers: { 'x-request-id': ids[2] } });
    await until(async () => (await rowsFor(env.pool, ids.slice(0, 3))).length === 3);
    const since = `from=${encodeURIComponent(started.toISOString())}`;

    const post = await t.call('GET', logsPath(w.projectId, `${since}&method=POST`));
    expect(post.json.list.map((e: { requestId: string }) => e.requestId)).toEqual([ids[0]]);
    expect(post.json.pagination).toMatchObject({ total: 1, pages: 1, hasNext: false });

    const notFound = await t.call('GET', logsPath(w.projectId, `${since}&status=404&method=DELETE`));
    expect(notFound.json.list.map((e: { requestId: string }) => e.requestId)).toEqual([ids[2]]);

    const byKey = await t.call('GET', logsPath(w.projectId, `${since}&apiKeyId=${w.readKey.id}`));
    expect(byKey.json.list.map((e: { requestId: string }) => e.requestId)).toEqual([ids[1]]);

    const all = await t.call('GET', logsPath(w.projectId, since));
    const order = all.json.list.map((e: { createdAt: string }) => e.createdAt);
    expect(order).toEqual([...order].sort().reverse());

    const before = await t.call('GET', logsPath(w.projectId, `to=${encodeURIComponent(new Date(started.getTime() - 1).toISOString())}&${since}`));
    expect(before.status).toBe(400);
    const none = await t.call('GET', logsPath(w.projectId, `from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z`));
    expect(none.json).toEqual({ list: [], pagination: { page: 1, size: 20, total: 0, pages: 0, hasNext: false } });
  });

  it("filters by path and by the console's marker, which its header sets; such lists are not counted", async () => {
    const { t, w } = env;
    const started = new Date();
    const ids = uniqueIds(3, 'console');
    const consoleHeaders = { 'tabula-client': 'console' };
    await t.call('GET', `/v1/${w.projectId}/variables`, { headers: { ...consoleHeaders, 'x-request-id': ids[0] } });
    await t.call('GET', `/v1/${w.projectId}/tables?marker=${process.pid}`, { headers: { ...consoleHeaders, 'x-request-id': ids[1] } });
    // Another value of the header is no marker.
    await t.call('GET', `/v1/${w.projectId}/tables?marker=${process.pid}`, { headers: { 'tabula-client': 'script', 'x-request-id': ids[2] } });
    await until(async () => (await rowsFor(env.pool, ids)).length === 3);
    const since = `from=${encodeURIComponent(started.toISOString())}`;
    const requestIds = (res: { json: { list: { requestId: string }[] } }) => res.json.list.map((e) => e.requestId);

    const byPath = await t.call('GET', logsPath(w.projectId, `${since}&path=${encodeURIComponent(`marker=${process.pid}`)}`));
    expect(requestIds(byPath)).toEqual([ids[2], ids[1]]);
    expect(byPath.json.list.map((e: { console: boolean }) => e.console)).toEqual([false, true]);
    expect(byPath.json.pagination).toEqual({ page: 1, size: 20, total: null, pages: null, hasNext: false });

    const only = await t.call('GET', logsPath(w.projectId, `${since}&console=only`));
    expect(requestIds(only).filter((id) => ids.includes(id))).toEqual([ids[1], ids[0]]);
    const others = await t.call('GET', logsPath(w.projectId, `${since}&console=exclude`));
    expect(requestIds(others).filter((id) => ids.includes(id))).toEqual([ids[2]]);
    const both = await t.call('GET', logsPath(w.projectId, `${since}&console=exclude&path=%2Fvariables`));
    expect(requestIds(both).filter((id) => ids.includes(id))).toEqual([]);
    for (const query of ['console=yes', 'path=']) expectError(await t.call('GET', logsPath(w.projectId, query)), 400, 'INVALID_QUERY');
  });

  it('pages with a total, or without counting', async () => {
    const { t, w } = env;
    const page = await t.call('GET', logsPath(w.projectId, 'size=2&page=2'));
    expect(page.json.list.length).toBe(2);
    expect(page.json.pagination.total).toBeGreaterThan(4);
    expect(page.json.pagination.pages).toBe(Math.ceil(page.json.pagination.total / 2));
    const uncounted = await t.call('GET', logsPath(w.projectId, 'size=2&withCount=false'));
    expect(uncounted.json.pagination).toEqual({ page: 1, size: 2, total: null, pages: null, hasNext: true });
  });

  it('refuses bad filters with INVALID_QUERY', async () => {
    const { t, w } = env;
    for (const query of ['status=abc', 'status=99', 'method=FETCH', 'apiKeyId=nope', 'from=yesterday', 'size=1001', 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z']) {
      expectError(await t.call('GET', logsPath(w.projectId, query)), 400, 'INVALID_QUERY');
    }
  });

  it('is readable by read_write keys and members of the project; read keys and others get 403', async () => {
    const { t, w } = env;
    expect((await t.call('GET', logsPath(w.projectId), { token: w.writeKey.key })).status).toBe(200);
    // Request logs hold other callers' addresses and agents; read keys live in browsers.
    expectError(await t.call('GET', logsPath(w.projectId), { token: w.readKey.key }), 403, 'FORBIDDEN');
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId }));
    const trpc = await t.call('GET', `/trpc/logs.list?input=${input}`, { token: w.readKey.key });
    expect({ status: trpc.status, code: trpc.json?.error?.data?.error?.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect((await t.call('GET', `/trpc/logs.list?input=${input}`, { token: w.writeKey.key })).status).toBe(200);
    const viewer = await person(t, w.workspaceId, w.projectId, 'VIEWER');
    expect((await t.call('GET', logsPath(w.projectId), { token: viewer.token })).status).toBe(200);
    expectError(await t.call('GET', logsPath(w.otherProjectId), { token: w.readKey.key }), 403, 'FORBIDDEN');
    const outsider = await person(t, w.workspaceId);
    expectError(await t.call('GET', logsPath(w.projectId), { token: outsider.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', logsPath(w.projectId), { token: null }), 401, 'UNAUTHORIZED');
  });
});
