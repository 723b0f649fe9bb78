import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createV1Handler } from '../../src/http/v1.js';
import { buildV1Routes } from '../../src/http/v1-routes.js';
import { appRouter } from '../../src/trpc/router.js';
import { clientFor, startTestApi, type CallOptions, type CallResult, type TestApi } from '../helpers/api.js';
import { adapterV1Handlers } from './v1-adapter.js';
import { buildHostileWorld, fillPath, type Credentials, type HostileWorld } from './world.js';

/**
 * `/v1` requests are dispatched straight to their procedure (src/http/v1.ts) instead of
 * through trpc-to-openapi's adapter (./v1-adapter.ts). Both are mounted here over the same
 * dependencies: every documented operation, with every kind of caller and with hostile paths,
 * query strings and bodies, must get the same status, headers and body from both. Writes that
 * succeed change the data, so those are compared with their ids and timestamps masked. The one
 * deliberate difference: query strings are read strictly (src/http/v1-query.ts) where the adapter coerces them with
 * `Number()`; those cases are checked on their own.
 */

let t: TestApi;
let world: HostileWorld;
let gets: string[];
let writes: [method: string, path: string][];
const servers: Server[] = [];
let viaAdapter: ReturnType<typeof clientFor>;
let direct: ReturnType<typeof clientFor>;

async function mount(direct: boolean): Promise<string> {
  const app = express();
  app.set('query parser', 'simple');
  const routes = buildV1Routes(appRouter);
  app.use('/v1', ...(direct ? [createV1Handler(t.api.deps, appRouter, routes)] : adapterV1Handlers(t.api.deps, appRouter, routes)));
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  t = await startTestApi({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
  world = await buildHostileWorld(t);
  const doc = (await t.call('GET', '/v1/openapi.json', { token: null })).json as { paths: Record<string, Record<string, unknown>> };
  gets = Object.entries(doc.paths).filter(([, item]) => 'get' in item).map(([path]) => path);
  writes = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((m) => ['post', 'put', 'patch', 'delete'].includes(m)).map((m): [string, string] => [m.toUpperCase(), path]),
  );
  viaAdapter = clientFor(await mount(false), t.adminToken);
  direct = clientFor(await mount(true), t.adminToken);
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await t?.close();
});

const VOLATILE = new Set(['date', 'connection', 'keep-alive']);
const comparable = (res: CallResult) => ({
  status: res.status,
  // A write's consistency token is its commit's WAL position: present on both, never equal.
  headers: Object.fromEntries([...res.headers].filter(([name]) => !VOLATILE.has(name)).map(([name, value]) => [name, name === 'tabula-consistency' ? '<lsn>' : value])),
  body: res.text,
});

/** The same answer except for ids and times, which a write that succeeded twice cannot share. */
const masked = (res: CallResult) =>
  JSON.parse(
    JSON.stringify(comparable(res))
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>'),
  );

/** The adapter's answer, then ours, to the same request: identical (masked if the write succeeded). */
async function expectSame(path: string, token: string | null, method = 'GET', options: CallOptions = {}): Promise<CallResult> {
  const adapter = await viaAdapter(method, `/v1${path}`, { ...options, token });
  const ours = await direct(method, `/v1${path}`, { ...options, token });
  if (method !== 'GET' && adapter.status < 300) expect(masked(ours), `${method} ${path}`).toEqual(masked(adapter));
  else expect(comparable(ours), `${method} ${path}`).toEqual(comparable(adapter));
  return ours;
}

describe('direct dispatch answers exactly as the trpc-to-openapi adapter', () => {
  it('every documented GET, for every kind of caller', async () => {
    expect(gets.length).toBeGreaterThan(25);
    const callers: (keyof Credentials | null)[] = [null, 'ownerA', 'viewerA', 'readKeyA', 'writeKeyA', 'inactiveKeyA', 'ownerB', 'writeKeyB'];
    const statuses = new Set<number>();
    // Metrics end at "now" unless told otherwise: a fixed range keeps the two answers comparable.
    const fixedRange = `?from=${encodeURIComponent('2026-01-01T00:00:00Z')}&to=${encodeURIComponent('2026-01-02T00:00:00Z')}`;
    for (const path of gets) {
      const filled = fillPath(path, world.ids) + (path.endsWith('/metrics') ? fixedRange : '');
      for (const who of callers) {
        const res = await expectSame(filled, who === null ? null : world.creds[who]);
        statuses.add(res.status);
      }
    }
    // The comparison covered successes and each refusal, not one kind of answer.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 401, 403]));
  });

  it('hostile paths and query strings', async () => {
    const { projectId, tableId, contentsId, fileId } = world.ids;
    const contents = `/${projectId}/tables/${tableId}/contents`;
    const cases = [
      `${contents}?size=2&page=1&fields=title&sort=${encodeURIComponent('[{"i":"title","o":"desc"}]')}`,
      `${contents}?filter=${encodeURIComponent('[{"i":"title","w":"eq","v":"Hello"}]')}&withCount=false`,
      `${contents}?filter=not-json`,
      `${contents}?filter=${encodeURIComponent('[{"i":"nope","w":"eq","v":1}]')}`,
      `${contents}?size=0`,
      `${contents}?page=-1`,
      `${contents}?withCount=maybe`,
      `${contents}?cursor=tampered`,
      `${contents}?locale=xx`,
      `${contents}/`,
      `${contents}/${contentsId}?locale=fr`,
      `${contents}/${contentsId.toUpperCase()}`,
      `${contents}/does-not-exist`,
      `${contents}/%E0%A4%A`,
      `${contents}/a%2Fb`,
      `/${projectId}/TABLES/${tableId}/contents`,
      `/${projectId}/tables/articles/contents`,
      `/${projectId}/tables/nope/contents`,
      `/${projectId}/files/${fileId}`,
      `/${projectId}/logs?from=2020-01-01T00:00:00Z&to=yesterday`,
      `/workspaces/${world.ids.workspaceId}/metrics?granularity=week`,
      '/not-a-project/tables',
      '/accounts/me?unexpected=1',
    ];
    for (const path of cases) {
      await expectSame(path, world.creds.ownerA);
      await expectSame(path, world.creds.readKeyA);
    }
  });

  it('query strings the adapter coerces or drops are refused by the dispatcher, after the access checks', async () => {
    const { projectId, tableId } = world.ids;
    const contents = `/${projectId}/tables/${tableId}/contents`;
    // The adapter answers 200 to some of these (`size=` is its default, `page=0x10` page 16).
    const cases = [
      `${contents}?size=abc&page=-1`,
      `${contents}?page=1&page=2`,
      `${contents}?fields=title&fields=status`,
      `${contents}?size=`,
      `${contents}?page=0x10`,
      `/${projectId}/logs?status=abc`,
      `/${projectId}/logs?status=2e2`,
    ];
    for (const path of cases) {
      // Read keys may not read request logs at all: their 403 comes before the query's 400.
      const readsLogs = path.startsWith(`/${projectId}/logs`);
      for (const who of ['ownerA', 'readKeyA'] as const) {
        const ours = await direct('GET', `/v1${path}`, { token: world.creds[who] });
        const expected = who === 'readKeyA' && readsLogs ? [403, 'FORBIDDEN'] : [400, 'INVALID_QUERY'];
        expect([ours.status, ours.json?.error?.code], `${who} ${path}`).toEqual(expected);
      }
      // 401 and 403 still come first, as on every other refusal.
      expect((await direct('GET', `/v1${path}`, { token: null })).status, path).toBe(401);
      expect((await direct('GET', `/v1${path}`, { token: world.creds.writeKeyB })).status, path).toBe(403);
    }
  });

  it('every documented write, for every caller without the right to it', async () => {
    expect(writes.length).toBeGreaterThan(35);
    // Refused callers change nothing, so both answers can be compared exactly; ownerB may still
    // create things of its own (a workspace), which the masked comparison covers.
    const callers: (keyof Credentials | null)[] = [null, 'inactiveKeyA', 'readKeyA', 'viewerA', 'writeKeyB', 'ownerB'];
    const statuses = new Set<number>();
    for (const [method, path] of writes) {
      const filled = fillPath(path, world.ids);
      for (const who of callers) {
        const body = method === 'DELETE' ? undefined : {};
        const res = await expectSame(filled, who === null ? null : world.creds[who], method, { body });
        statuses.add(res.status);
      }
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([400, 401, 403]));
  });

  it('hostile bodies, unknown items and query strings on writes', async () => {
    const { projectId, tableId, contentsId, columnId, webhookId } = world.ids;
    const contents = `/${projectId}/tables/${tableId}/contents`;
    const json = { 'content-type': 'application/json' };
    const ghost = '0190b0a0-0000-7000-8000-00000000c0de';
    const cases: [string, string, CallOptions][] = [
      ['POST', contents, { raw: '{"data":', headers: json }],
      ['POST', contents, { raw: 'data=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['POST', contents, { raw: '{"data":{}}', headers: { 'content-type': 'application/json; charset=latin1' } }],
      ['POST', contents, { raw: '[1,2]', headers: json }],
      ['POST', contents, { raw: Buffer.from([0x7b, 0xff, 0x7d]), headers: json }],
      ['POST', contents, { body: { data: 'text' } }],
      ['POST', contents, { body: { data: { title: 5 } } }],
      ['POST', contents, { body: { data: { nope: 1 } } }],
      ['POST', contents, { body: { data: { title: 'x' }, status: 'WEIRD' } }],
      ['POST', contents, { body: { data: { title: 'x\u0000' } } }],
      ['POST', `${contents}?status=DRAFT&page=2`, { body: { data: 'x' } }],
      ['PUT', `${contents}/${ghost}`, { body: { data: {} } }],
      ['PUT', `${contents}/${contentsId}`, { raw: 'nope', headers: json }],
      ['PUT', `${contents}/${contentsId}`, { body: { status: 'NOPE' } }],
      ['DELETE', `${contents}/${ghost}`, {}],
      ['DELETE', `${contents}/%E0%A4%A`, {}],
      ['PATCH', contents, { body: {} }],
      ['PUT', `/${projectId}/tables/${tableId}/columns/${columnId}`, { body: { settings: { maxText: -1 } } }],
      ['POST', `/${projectId}/tables`, { body: { key: 5 } }],
      ['PUT', `/${projectId}/webhooks/${ghost}`, { raw: '{', headers: json }],
      ['DELETE', `/${projectId}/webhooks/${webhookId}x`, {}],
      ['POST', '/not-a-project/tables', { body: {} }],
      ['POST', `/workspaces/${world.ids.workspaceId}/projects`, { body: { name: 5 } }],
    ];
    for (const [method, path, options] of cases) {
      const res = await expectSame(path, world.creds.ownerA, method, options);
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    }
  });

  it('successful creates, updates and deletes', async () => {
    const { projectId, tableId } = world.ids;
    const contents = `/${projectId}/tables/${tableId}/contents`;
    const token = world.creds.writeKeyA;
    const created = await Promise.all([viaAdapter, direct].map((face) => face('POST', `/v1${contents}`, { token, body: { data: { title: 'Same' }, status: 'DRAFT' } })));
    expect(created[0].status).toBe(201);
    expect(masked(created[1])).toEqual(masked(created[0]));
    const [first, second] = created.map((r) => r.json.id as string);
    const body = { data: { title: 'Changed' }, status: 'PUBLISHED' };
    const updated = [await viaAdapter('PUT', `/v1${contents}/${first}`, { token, body }), await direct('PUT', `/v1${contents}/${second}`, { token, body })];
    expect(updated[0].status).toBe(200);
    expect(masked(updated[1])).toEqual(masked(updated[0]));
    const deleted = [await viaAdapter('DELETE', `/v1${contents}/${first}`, { token }), await direct('DELETE', `/v1${contents}/${second}`, { token })];
    expect(deleted[0].status).toBe(204);
    expect(comparable(deleted[1])).toEqual(comparable(deleted[0]));
  });
});
