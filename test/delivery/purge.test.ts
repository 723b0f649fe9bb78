import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import { KEYS_PER_REQUEST, purgeRequests } from '../../src/modules/delivery/purge-requests.js';
import { createLogger } from '../../src/shared/logger.js';
import { startCdnPurge } from '../../workers/handlers/cdn-purge.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { buildWorld, createRow, createTable, expectStatus, putRow, type Table, type World } from '../contents/fixture.js';

/**
 * docs/scaling-out.md#http-caches-and-purging: the `cdn-purge` worker sends the keys of each
 * committed change in the chosen format, only after the commit, narrowed to what read keys
 * could see, and keeps a failed batch queued until it goes through.
 */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let t: TestApi;
let w: World;
let posts: Table;
let server: Server;
let received: Received[] = [];
/** Statuses to answer next (then 200). */
const failures: number[] = [];
let pool: pg.Pool;
let purger: { stop(): Promise<void> };

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }], { defaultStatus: 'PUBLISHED' });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.statusCode = failures.shift() ?? 200;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const logger = createLogger('silent');
  pool = createPool(t.db.url, 2, logger);
  const config = loadConfig({ CDN_PURGE_URL: `http://127.0.0.1:${port}/service/svc1/purge`, CDN_PURGE_KIND: 'fastly', CDN_PURGE_TOKEN: 'fastly-token' });
  purger = startCdnPurge(pool, config, logger);
});
afterAll(async () => {
  await purger?.stop();
  await pool?.end();
  server?.close();
  await t?.close();
});

const keysOf = (r: Received) => String(r.headers['surrogate-key'] ?? '').split(' ');
const purged = (key: string) => received.some((r) => keysOf(r).includes(key));

describe('purge requests', () => {
  it('builds Varnish, Fastly and Cloudflare requests, deduplicated and in chunks', () => {
    const keys = ['r:1', 'l:t', 'r:1', ...Array.from({ length: 40 }, (_, i) => `r:x${i}`)];
    const varnish = purgeRequests('varnish', 'http://cache/', keys);
    expect(varnish).toHaveLength(1);
    expect(varnish[0]).toMatchObject({ method: 'PURGE', url: 'http://cache/' });
    expect(varnish[0].headers['xkey-purge'].split(' ')).toHaveLength(42);
    const fastly = purgeRequests('fastly', 'https://api.fastly.com/service/S/purge', keys, 'tok');
    expect(fastly[0]).toMatchObject({ method: 'POST', headers: { 'fastly-key': 'tok' } });
    const cloudflare = purgeRequests('cloudflare', 'https://api.cloudflare.com/client/v4/zones/Z/purge_cache', keys, 'tok');
    expect(cloudflare).toHaveLength(Math.ceil(42 / KEYS_PER_REQUEST.cloudflare));
    expect(cloudflare[0].headers.authorization).toBe('Bearer tok');
    expect(JSON.parse(cloudflare[0].body!).tags).toHaveLength(30);
    expect(cloudflare.flatMap((req) => JSON.parse(req.body!).tags as string[]).sort()).toEqual([...new Set(keys)].sort());
  });
});

describe('configuration', () => {
  it('requires a token for Fastly and Cloudflare, not for Varnish', () => {
    for (const kind of ['fastly', 'cloudflare']) {
      expect(() => loadConfig({ CDN_PURGE_URL: 'https://api.example.com/purge', CDN_PURGE_KIND: kind })).toThrow(/CDN_PURGE_TOKEN/);
    }
    expect(loadConfig({ CDN_PURGE_URL: 'http://varnish:6081/' }).CDN_PURGE_KIND).toBe('varnish');
    expect(loadConfig({}).CDN_MAX_AGE).toBe(0);
    expect(() => loadConfig({ CDN_MAX_AGE: '-1' })).toThrow(/CDN_MAX_AGE/);
  });
});

describe('the cdn-purge worker', () => {
  it('purges a changed row and the table’s lists, in the Fastly format', async () => {
    const row = await createRow(w, posts.id, { title: 'a' });
    await until(() => purged(`r:${row.id}`), 10_000, 'the purge of the created row');
    const request = received.find((r) => keysOf(r).includes(`r:${row.id}`))!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/service/svc1/purge');
    expect(request.headers['fastly-key']).toBe('fastly-token');
    expect(keysOf(request)).toContain(`l:${posts.id}`);
  });

  it('sends no purge before the commit', async () => {
    // Another table: the open transaction holds a change counter of its table that a writer of
    // the same table could have to wait for.
    const held = await createTable(w, [{ name: 'title', type: 'text' }], { defaultStatus: 'PUBLISHED' });
    const row = await createRow(w, held.id, { title: 'b' });
    await until(() => purged(`r:${row.id}`), 10_000, 'the purge of the created row');
    const client = new pg.Client({ connectionString: t.db.url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`update contents set data = '{"title":"uncommitted"}', version = version + 1 where id = $1`, [row.id]);
      received = [];
      // A later, committed change is purged while the first is still open: the worker has passed.
      const probe = await createRow(w, posts.id, { title: 'probe' });
      await until(() => purged(`r:${probe.id}`), 10_000, 'the purge of the committed change');
      expect(purged(`r:${row.id}`)).toBe(false);
      await client.query('commit');
      await until(() => purged(`r:${row.id}`), 10_000, 'the purge after the commit');
    } finally {
      await client.end();
    }
  });

  it('does not purge for changes no read key can see (DRAFT rows)', async () => {
    const draft = await createRow(w, posts.id, { title: 'draft' }, { status: 'DRAFT' });
    expectStatus(await putRow(w, posts.id, draft.id, { data: { title: 'draft 2' } }), 200);
    const probe = await createRow(w, posts.id, { title: 'probe 2' });
    await until(() => purged(`r:${probe.id}`), 10_000, 'the purge of the published row');
    expect(purged(`r:${draft.id}`)).toBe(false);
  });

  it('keeps a failed batch queued and sends it again', async () => {
    failures.push(503, 500);
    received = [];
    const row = await createRow(w, posts.id, { title: 'c' });
    await until(() => received.filter((r) => keysOf(r).includes(`r:${row.id}`)).length >= 3, 20_000, 'two failed attempts and a third that succeeds');
  });
});
