import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { logCapture } from '../helpers/log-capture.js';
import { until } from '../helpers/until.js';
import { buildWorld, randomSecret, type World } from '../auth/fixture.js';
import { rowsFor } from './fixture.js';
import { createPool } from '../../src/db/pool.js';
import type pg from 'pg';

/*
 * docs/logs-and-metrics.md "What logs never hold": no credential (an API key `tak_…`, an account
 * token `tat_…`, or whatever `access_token=` carries) reaches a log line, a request log entry or
 * a metric label, whatever the path, the method, the answer, and however the credential is
 * spelled (percent-encoded, in part or twice). Cases: a few dozen in `npm test`, STRESS_RUNS in
 * `npm run test:stress`.
 */

const runs = (normal: number) => Number(process.env.STRESS_RUNS) || normal;
const seed = Number(process.env.FC_SEED) || 20261127;

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
/** The credential as a client might spell it in a URL. */
const spell = (text: string, how: 'raw' | 'all' | 'some' | 'twice' | 'upper', picks: number[]) => {
  switch (how) {
    case 'raw':
      return text;
    case 'all':
      return [...text].map(hex).join('');
    case 'upper':
      return [...text].map((c) => hex(c).toUpperCase()).join('');
    case 'twice':
      return [...text].map((c, i) => (picks.includes(i % 7) ? `%25${hex(c).slice(1)}` : c)).join('');
    case 'some':
      return [...text].map((c, i) => (picks.includes(i % 7) ? hex(c) : c)).join('');
  }
};

/** Everything percent-decoded (up to three times) and JSON escapes undone, so no spelling hides a secret. */
function decoded(text: string): string {
  let out = text.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  for (let i = 0; i < 3; i++) out = out.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return out;
}

/** The secrets (their 43 random characters, or an opaque access_token value) found in `text`. */
const leaked = (text: string, secrets: Iterable<string>) => {
  const plain = decoded(text);
  return [...secrets].filter((secret) => plain.includes(secret));
};

const secretBody = (credential: string) => (/^ta[kt]_/.test(credential) ? credential.slice(4) : credential);

describe('log lines (pino)', () => {
  it('never hold a credential, wherever a log call puts it', () => {
    const capture = logCapture();
    const logger = createLogger('debug', 'tabula', { destination: capture.stream });
    fc.assert(
      fc.property(
        fc.oneof(fc.constant('tak_'), fc.constant('tat_')).map(randomSecret),
        fc.constantFrom('raw', 'all', 'some', 'twice', 'upper') as fc.Arbitrary<'raw' | 'all' | 'some' | 'twice' | 'upper'>,
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 4 }),
        fc.constantFrom('path', 'query', 'message', 'error', 'nested'),
        (credential, how, picks, where) => {
          capture.lines.length = 0;
          const spelt = spell(credential, how, picks);
          const url = `/v1/0190b0a0-0000-7000-8000-000000000000/files/x/content?access_token=${spelt}`;
          if (where === 'path') logger.error({ path: `/v1/${spelt}/tables` }, 'request failed');
          if (where === 'query') logger.warn({ path: url }, 'request failed');
          if (where === 'message') logger.info(`fetching ${url}`);
          if (where === 'error') logger.error({ err: new Error(`could not read ${url}`), path: '/v1/x' }, 'request failed');
          if (where === 'nested') logger.error({ request: { url, headers: { 'user-agent': `agent ${spelt}` } } }, 'request failed');
          expect(capture.lines.length).toBe(1);
          expect(leaked(capture.lines.join('\n'), [secretBody(credential)]), capture.lines[0]).toEqual([]);
        },
      ),
      { numRuns: runs(200), seed },
    );
  });
});

describe('requests with credentials in the query, the path and the headers', () => {
  let t: TestApi;
  let w: World;
  let workers: RunningWorkers;
  let pool: pg.Pool;
  const capture = logCapture();

  beforeAll(async () => {
    t = await startTestApi({}, { logger: createLogger('debug', 'tabula', { destination: capture.stream }) });
    w = await buildWorld(t);
    pool = createPool(t.db.url, 2, createLogger('silent'));
    workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['request-logs']);
  });
  afterAll(async () => {
    await workers?.stop(2_000);
    await pool?.end();
    await t?.close();
  });

  it('leave no credential in a log line, a request log entry or a metric label', async () => {
    const secrets = new Set<string>();
    const pathTemplates = [
      (p: string) => `/v1/${p}/events/stream`,
      (p: string) => `/v1/${p}/events/Stream`,
      (p: string) => `/v1/${p}/events//stream`,
      (p: string) => `/v1/${p}/events/%73tream`,
      (p: string) => `/v1/${p}/files/0190b0a0-0000-7000-8000-000000000000/content`,
      (p: string) => `/v1/${p}/tables/posts/contents/export`,
      (p: string) => `/v1/${p}/tables`,
      (p: string) => `/v1/${p}/logs`,
      (p: string) => `/trpc/tables.list?input=${encodeURIComponent(JSON.stringify({ projectId: p }))}`,
      (p: string) => `/v1/workspaces/${w.workspaceId}/projects/${p}`,
    ];
    const credential = fc.oneof(
      fc.constantFrom(w.readKey.key, w.writeKey.key),
      fc.oneof(fc.constant('tak_' as const), fc.constant('tat_' as const)).map(randomSecret),
      fc.stringMatching(/^[A-Za-z0-9]{24}$/).map((s) => `opaque${s}`),
    );
    const spelling = fc.record({
      how: fc.constantFrom('raw', 'all', 'some', 'twice', 'upper') as fc.Arbitrary<'raw' | 'all' | 'some' | 'twice' | 'upper'>,
      picks: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 4 }),
    });
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
      template: fc.integer({ min: 0, max: pathTemplates.length - 1 }),
      credential,
      spelling,
      where: fc.constantFrom('access_token', 'access%5Ftoken', 'other-param', 'path', 'user-agent', 'request-id', 'authorization'),
      auth: fc.constantFrom('none', 'read', 'write', 'admin', 'bogus'),
      secondCredential: fc.option(fc.oneof(fc.constant('tak_' as const), fc.constant('tat_' as const)).map(randomSecret)),
    });

    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const base = pathTemplates[r.template](w.projectId);
        const spelt = spell(r.credential, r.spelling.how, r.spelling.picks);
        // An opaque value is a secret only as the value of access_token.
        const opaque = r.credential.startsWith('opaque');
        if (opaque && !r.where.startsWith('access')) return;
        secrets.add(secretBody(r.credential));
        const join = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;
        let path = base;
        const headers: Record<string, string> = {};
        if (r.where === 'access_token' || r.where === 'access%5Ftoken') path = join(base, `types=a&${r.where}=${spelt}`);
        if (r.where === 'other-param') path = join(base, `q=${spelt}`);
        if (r.where === 'path') path = base.replace(/^\/v1\/[^/]+/, `/v1/${w.projectId}/${spelt}`);
        if (r.where === 'user-agent') headers['user-agent'] = `probe/1.0 (${r.credential})`;
        if (r.where === 'request-id') headers['x-request-id'] = r.credential;
        if (r.where === 'authorization') headers.authorization = `Bearer ${r.credential}`;
        if (r.secondCredential) {
          secrets.add(secretBody(r.secondCredential));
          path = join(path, `next=${encodeURIComponent(r.secondCredential)}`);
        }
        const token = { none: null, read: w.readKey.key, write: w.writeKey.key, admin: t.adminToken, bogus: randomSecret('tak_') }[r.auth];
        if (token && !headers.authorization) headers.authorization = `Bearer ${token}`;
        // An admin's DELETE of the project would end the run's world (every later entry a 404
        // of no project): that one is sent as a GET.
        const method = r.method === 'DELETE' && base.includes('/projects/') ? 'GET' : r.method;
        const res = await fetch(`${t.url}${path}`, { method, headers, signal: AbortSignal.timeout(10_000) });
        // An event stream that opened is closed at once; anything else is read to its end.
        await (res.headers.get('content-type')?.startsWith('text/event-stream') ? res.body?.cancel() : res.arrayBuffer());
        expect(leaked(capture.lines.join('\n'), secrets), `log lines after ${method} ${path}`).toEqual([]);
      }),
      { numRuns: runs(40), seed },
    );

    // Every entry above is stored once the sentinel, logged after them, is.
    const sentinel = `sentinel-${process.pid}`;
    await t.call('GET', `/v1/${w.projectId}/tables`, { headers: { 'x-request-id': sentinel } });
    await until(async () => (await rowsFor(pool, [sentinel])).length === 1, 15_000, 'the sentinel log entry');
    const logs = await t.call('GET', `/v1/${w.projectId}/logs?size=1000`);
    expect(logs.status).toBe(200);
    expect(logs.json.list.length).toBeGreaterThan(10);
    expect(leaked(logs.text, secrets), 'request log entries').toEqual([]);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toContain('tabula_http_requests_total');
    expect(leaked(metrics, secrets), 'metric labels').toEqual([]);
    expect(leaked(capture.lines.join('\n'), secrets), 'log lines').toEqual([]);
  });
});
