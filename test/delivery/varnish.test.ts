import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/shared/logger.js';
import { startCdnPurge } from '../../workers/handlers/cdn-purge.js';
import { clientFor, startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { startInProcess, type SecondApi } from '../auth/second-process.js';
import { until } from '../helpers/until.js';
import { startVarnish, type RunningVarnish } from '../helpers/varnish.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, putRow, type Table, type World } from '../contents/fixture.js';

/**
 * docs/scaling-out.md#http-caches-and-purging, behind a real Varnish running the shipped
 * docs/cdn/varnish.vcl over two API processes, with the `cdn-purge` worker purging it: read
 * keys' answers are served from the cache, a write through either process is purged, and no
 * caller ever gets an answer cached for another (key, project, Origin), nor a DRAFT row.
 */
let t: TestApi;
let second: SecondApi;
let varnish: RunningVarnish;
let purger: { stop(): Promise<void> };
let pool: pg.Pool;
let w: World;
let posts: Table;
let via: ReturnType<typeof clientFor>;

beforeAll(async () => {
  t = await startTestApi({ CDN_MAX_AGE: '300' });
  second = await startInProcess(t, { CDN_MAX_AGE: '300' });
  varnish = await startVarnish([t.url, second.url]);
  const logger = createLogger('silent');
  pool = createPool(t.db.url, 2, logger);
  purger = startCdnPurge(pool, loadConfig({ CDN_PURGE_URL: `${varnish.url}/` }), logger);
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }], { defaultStatus: 'PUBLISHED' });
  via = clientFor(varnish.url, w.readKey);
}, 60_000);
afterAll(async () => {
  await purger?.stop();
  await pool?.end();
  await varnish?.close();
  await second?.close();
  await t?.close();
});

const cached = (res: CallResult) => res.headers.get('x-cache');
/**
 * Until every purge queued so far has reached Varnish (the worker deletes a batch in the
 * transaction that sends it). A write's purges go out after its answer: one landing between the
 * two reads of an "is it cached now" check would empty the cache under it (creating an API key
 * purges the whole project, `p:`).
 */
const purgesSent = () =>
  until(async () => (await pool.query<{ n: number }>('select count(*)::int as n from cache_purge')).rows[0].n === 0, 10_000, 'the queued purges to reach Varnish');
const titles = (res: CallResult) => (res.json.list as { data: { title: string } }[]).map((row) => row.data.title);

describe('behind Varnish', () => {
  it('serves a read key’s list from the cache, and a write through either process is purged', async () => {
    await createRow(w, posts.id, { title: 'first' });
    await purgesSent();
    const path = contentsPath(w, posts.id);
    const miss = expectStatus(await via('GET', path), 200) && (await via('GET', path));
    expect(cached(miss)).toBe('HIT');
    expect(Number(miss.headers.get('age'))).toBeGreaterThanOrEqual(0);
    for (const [n, api] of [t.call, second.call].entries()) {
      const row = expectStatus(await api('POST', path, { token: w.writeKey, body: { data: { title: `written-${n}` } } }), 201);
      const fresh = await until(async () => {
        const res = await via('GET', path);
        return titles(res).includes(`written-${n}`) && res;
      }, 10_000, `the list through Varnish to show written-${n}`);
      expect(fresh.status).toBe(200);
      // Cached again after the purge.
      expect(cached(await via('GET', path))).toBe('HIT');
      // An update of one row purges the read of that row.
      const one = contentsPath(w, posts.id, row.id);
      await via('GET', one);
      expect(cached(await via('GET', one))).toBe('HIT');
      expectStatus(await putRow(w, posts.id, row.id, { data: { title: `changed-${n}` } }), 200);
      await until(async () => (await via('GET', one)).json?.data?.title === `changed-${n}`, 10_000, 'the row through Varnish to change');
    }
  });

  it('never shares an answer between keys, projects or Origins', async () => {
    const path = contentsPath(w, posts.id);
    await purgesSent();
    await via('GET', path);
    expect(cached(await via('GET', path))).toBe('HIT');
    // A read key of another project: refused by Tabula, not served from the cache.
    const other = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other', locales: ['en'], defaultLocale: 'en' } });
    const otherKey = expectStatus(await t.call('POST', `/v1/${other.json.id}/api-keys`, { body: { name: 'r', permission: 'read' } }), 201).key;
    for (let i = 0; i < 2; i++) {
      const res = await via('GET', path, { token: otherKey });
      expect(res.status).toBe(403);
      expect(cached(res)).toBe('MISS');
    }
    // A key restricted to a host: its Origin's answers are cached, another Origin is refused.
    const hosted = expectStatus(await t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: 'site', permission: 'read', allowedHosts: ['site.example'] } }), 201).key;
    await purgesSent();
    await via('GET', path, { token: hosted, headers: { origin: 'https://site.example' } });
    expect(cached(await via('GET', path, { token: hosted, headers: { origin: 'https://site.example' } }))).toBe('HIT');
    for (let i = 0; i < 2; i++) {
      const res = await via('GET', path, { token: hosted, headers: { origin: 'https://evil.example' } });
      expect(res.status).toBe(403);
      expect(cached(res)).toBe('MISS');
    }
    // Let in by its Referer (no Origin): answered privately, never cached.
    const byReferer = await via('GET', path, { token: hosted, headers: { referer: 'https://site.example/page' } });
    expect(byReferer.headers.get('cache-control')).toBe('private, no-cache');
    expect(cached(await via('GET', path, { token: hosted, headers: { referer: 'https://site.example/page' } }))).toBe('MISS');
    // Other callers' answers are private: never cached.
    await via('GET', path, { token: w.writeKey });
    expect(cached(await via('GET', path, { token: w.writeKey }))).toBe('MISS');
  });

  it('purges a key’s cached answers when the key is deactivated', async () => {
    const key = expectStatus(await t.call('POST', `/v1/${w.projectId}/api-keys`, { body: { name: 'soon off', permission: 'read' } }), 201);
    const path = contentsPath(w, posts.id);
    await purgesSent();
    await via('GET', path, { token: key.key });
    expect(cached(await via('GET', path, { token: key.key }))).toBe('HIT');
    expectStatus(await t.call('PUT', `/v1/${w.projectId}/api-keys/${key.id}`, { body: { active: false } }), 200);
    // Once the purge has gone out (its queue row is deleted when Varnish has answered it), the
    // very first request is refused: a project key is purged hard, never served in grace.
    await purgesSent();
    expect((await via('GET', path, { token: key.key })).status).toBe(401);
  });

  it('never lets a DRAFT row into a read key’s cached answers', async () => {
    const draft = await createRow(w, posts.id, { title: 'secret draft' }, { status: 'DRAFT' });
    const one = contentsPath(w, posts.id, draft.id);
    for (let i = 0; i < 2; i++) {
      const res = await via('GET', one);
      expect(res.status).toBe(404);
      expect(cached(res)).toBe('MISS');
    }
    const list = await via('GET', contentsPath(w, posts.id));
    expect(titles(list)).not.toContain('secret draft');
    // The editor's read passes through; publishing purges the read key's list.
    expect((await via('GET', one, { token: w.writeKey })).json.data.title).toBe('secret draft');
    await via('GET', contentsPath(w, posts.id));
    expectStatus(await putRow(w, posts.id, draft.id, { status: 'PUBLISHED' }), 200);
    await until(async () => titles(await via('GET', contentsPath(w, posts.id))).includes('secret draft'), 10_000, 'the published row in the cached list');
    expect((await via('GET', one)).status).toBe(200);
  });
});
