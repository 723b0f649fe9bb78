import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { buildWorld, createKey, type World } from '../auth/fixture.js';
import { callWithin, expectNoLeak } from './fixture.js';

/** Security headers, CORS (docs/concepts.md#cors) and what a server fault shows (nothing: docs/reliability.md#errors). */

let t: TestApi;
let w: World;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
});
afterAll(() => t?.close());

describe('security headers (helmet)', () => {
  const header = (res: CallResult, name: string) => res.headers.get(name) ?? '';

  it('are on /v1 (success and errors), /trpc, /docs and the OpenAPI document', async () => {
    const answers: [string, CallResult][] = [
      ['/v1 200', await callWithin(t, 'GET', '/v1/workspaces')],
      ['/v1 401', await callWithin(t, 'GET', '/v1/workspaces', { token: null })],
      ['/v1 404', await callWithin(t, 'GET', '/v1/no/such/path')],
      ['/v1 400', await callWithin(t, 'POST', '/v1/workspaces', { raw: '{', headers: { 'content-type': 'application/json' } })],
      ['/v1/openapi.json', await callWithin(t, 'GET', '/v1/openapi.json', { token: null })],
      ['/trpc 200', await callWithin(t, 'GET', '/trpc/workspaces.list?input=%7B%7D')],
      ['/trpc 401', await callWithin(t, 'GET', '/trpc/workspaces.list?input=%7B%7D', { token: null })],
      ['/docs', await callWithin(t, 'GET', '/docs/', { token: null })],
    ];
    for (const [label, res] of answers) {
      expect(res.status, label).toBeLessThan(500);
      expect(header(res, 'x-content-type-options'), label).toBe('nosniff');
      expect(header(res, 'x-frame-options'), label).toBe('SAMEORIGIN');
      // Plain http: no HSTS or COOP (browsers honour them on secure origins only), and no
      // upgrade-insecure-requests (test/http/security-headers.test.ts has the https set).
      expect(res.headers.has('strict-transport-security'), label).toBe(false);
      expect(res.headers.has('cross-origin-opener-policy'), label).toBe(false);
      expect(header(res, 'referrer-policy'), label).toBe('no-referrer');
      expect(header(res, 'x-permitted-cross-domain-policies'), label).toBe('none');
      const csp = header(res, 'content-security-policy');
      for (const directive of ["default-src 'self'", "frame-ancestors 'self'", "object-src 'none'", "script-src 'self'", "base-uri 'self'"]) {
        expect(csp, `${label}: ${directive}`).toContain(directive);
      }
      // Scripts only from this origin: no inline script anywhere, the docs page included.
      expect(csp.match(/script-src [^;]*/)?.[0], label).not.toContain('unsafe');
      expect(csp, label).not.toContain('upgrade-insecure-requests');
      expect(res.headers.has('x-powered-by'), label).toBe(false);
      expect(res.headers.get('x-request-id'), label).toBeTruthy();
    }
    expect(answers.find(([label]) => label === '/docs')![1].text).toContain('<html');
  });
});

describe('CORS', () => {
  const preflight = (path: string, origin: string, token?: string) =>
    callWithin(t, 'OPTIONS', path, {
      token: token ?? null,
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
  const acao = (res: CallResult) => res.headers.get('access-control-allow-origin');

  it('a preflight from any web origin is allowed (browsers send no key in it), costs no rate-limit token, and never allows credentials', async () => {
    for (const origin of ['https://app.example.org', 'http://localhost:5173', 'https://evil.example.net']) {
      const res = await preflight(`/v1/${w.projectId}/tables`, origin);
      expect(res.status).toBe(204);
      expect(acao(res)).toBe(origin);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/GET.*POST.*PUT.*DELETE/);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(res.headers.get('access-control-max-age')).toBe('600');
      expect(res.headers.get('vary')).toMatch(/origin/i);
      expect(res.headers.has('access-control-allow-credentials')).toBe(false);
      expect(res.headers.has('ratelimit-remaining')).toBe(false);
    }
    // `null` (sandboxed frames, file://) and malformed origins are never echoed.
    for (const origin of ['null', 'file://', 'https://app.example.org/path', 'app.example.org']) {
      expect(acao(await preflight('/v1/workspaces', origin)), origin).toBeNull();
    }
  });

  it('a key with allowedHosts: the response names only an allowed Origin (and the request is 403 otherwise)', async () => {
    const key = await createKey(t, w.projectId, 'read', { allowedHosts: ['app.example.org', '*.cdn.example.org'] });
    const list = (origin: string) => callWithin(t, 'GET', `/v1/${w.projectId}/tables`, { token: key.key, headers: { origin } });
    for (const origin of ['https://app.example.org', 'http://app.example.org:8080', 'https://img.cdn.example.org']) {
      const res = await list(origin);
      expect(res.status, origin).toBe(200);
      expect(acao(res), origin).toBe(origin);
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
      expect(res.headers.has('access-control-allow-credentials')).toBe(false);
    }
    for (const origin of ['https://evil.example.net', 'https://app.example.org.evil.net', 'https://cdn.example.org']) {
      const res = await list(origin);
      expectError(res, 403, 'FORBIDDEN');
      expect(acao(res), origin).toBeNull();
    }
    // Same on /trpc, and for a preflight that does carry the key (non-browser clients).
    const trpc = await callWithin(t, 'GET', `/trpc/tables.list?input=${encodeURIComponent(JSON.stringify({ projectId: w.projectId }))}`, {
      token: key.key,
      headers: { origin: 'https://evil.example.net' },
    });
    expect(trpc.status).toBe(403);
    expect(acao(trpc)).toBeNull();
    expect(acao(await preflight(`/v1/${w.projectId}/tables`, 'https://evil.example.net', key.key))).toBeNull();
    expect(acao(await preflight(`/v1/${w.projectId}/tables`, 'https://app.example.org', key.key))).toBe('https://app.example.org');
  });

  it('keys without allowedHosts, account tokens and requests without a valid credential: any web origin may read', async () => {
    const origin = 'https://anywhere.example.com';
    const cases: [string, string | null, number][] = [
      ['read_write key', w.writeKey.key, 200],
      ['account token', t.adminToken, 200],
      ['no credential (the 401 body reveals nothing)', null, 401],
    ];
    for (const [label, token, status] of cases) {
      const res = await callWithin(t, 'GET', `/v1/${w.projectId}/tables`, { token, headers: { origin } });
      expect(res.status, label).toBe(status);
      expect(acao(res), label).toBe(origin);
      expect(res.headers.get('vary'), label).toMatch(/origin/i);
    }
    // Without an Origin header there is nothing to echo.
    expect(acao(await callWithin(t, 'GET', `/v1/${w.projectId}/tables`))).toBeNull();
  });
});

describe('a server fault', () => {
  it('is 500 INTERNAL_ERROR with a generic message: no stack, no SQL, no table name; the request id is in the header', async () => {
    // A real fault under a real request: the variables table disappears for a moment.
    const admin = new pg.Client({ connectionString: t.db.url });
    await admin.connect();
    try {
      await admin.query('alter table variable rename to variable_gone');
      for (const [method, path, body] of [
        ['GET', `/v1/${w.projectId}/variables`, undefined],
        ['POST', `/v1/${w.projectId}/variables`, { key: 'k', value: 1 }],
      ] as const) {
        const res = await callWithin(t, method, path, { body, token: w.writeKey.key });
        expectError(res, 500, 'INTERNAL_ERROR');
        expect(res.json.error.message).toBe('Internal server error');
        expect(res.text).not.toContain('variable');
        expectNoLeak(res);
      }
      const trpc = await callWithin(t, 'GET', `/trpc/variables.list?input=${encodeURIComponent(JSON.stringify({ projectId: w.projectId }))}`);
      expect(trpc.status).toBe(500);
      expect(trpc.text).not.toMatch(/variable_|relation|stack|\.ts:/);
    } finally {
      await admin.query('alter table if exists variable_gone rename to variable');
      await admin.end();
    }
  });
});
