import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRouteIndex } from '../../src/http/route-index.js';
import { createV1Handlers } from '../../src/http/v1.js';
import { appRouter } from '../../src/trpc/router.js';
import { clientFor, startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildHostileWorld, fillPath, type Credentials, type HostileWorld } from './world.js';

/**
 * `/v1` reads are dispatched straight to their procedure (src/http/v1-reads.ts) instead of
 * through trpc-to-openapi's adapter. Both faces are mounted here over the same dependencies and
 * every documented GET, with every kind of caller and with hostile paths and query strings,
 * must get the same status, headers and body from both.
 */

let t: TestApi;
let world: HostileWorld;
let gets: string[];
const servers: Server[] = [];
let viaAdapter: ReturnType<typeof clientFor>;
let direct: ReturnType<typeof clientFor>;

async function mount(directReads: boolean): Promise<string> {
  const app = express();
  app.set('query parser', 'simple');
  app.use('/v1', ...createV1Handlers(t.api.deps, appRouter, buildRouteIndex(appRouter), { directReads }));
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
  headers: Object.fromEntries([...res.headers].filter(([name]) => !VOLATILE.has(name))),
  body: res.text,
});

async function expectSame(path: string, token: string | null): Promise<CallResult> {
  const adapter = await viaAdapter('GET', `/v1${path}`, { token });
  const ours = await direct('GET', `/v1${path}`, { token });
  expect(comparable(ours), `GET ${path}`).toEqual(comparable(adapter));
  return ours;
}

describe('direct reads answer exactly as the trpc-to-openapi adapter', () => {
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
      `${contents}?size=abc&page=-1`,
      `${contents}?page=1&page=2`,
      `${contents}?fields=title&fields=status`,
      `${contents}?withCount=maybe`,
      `${contents}?size=`,
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
      `/${projectId}/logs?status=abc`,
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
});
