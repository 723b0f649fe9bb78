import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

let t: TestApi;

beforeAll(async () => {
  t = await startTestApi();
});
afterAll(() => t?.close());

/** The paths under /accounts and /workspaces (docs/concepts.md#workspaces-projects-and-members); the others have suites of their own. */
const SEED_PATHS: [string, string][] = [
  ['GET', '/accounts/me'],
  ['PUT', '/accounts/me'],
  ['GET', '/workspaces'],
  ['POST', '/workspaces'],
  ['GET', '/workspaces/{workspaceId}'],
  ['PUT', '/workspaces/{workspaceId}'],
  ['DELETE', '/workspaces/{workspaceId}'],
  ['GET', '/workspaces/{workspaceId}/members'],
  ['POST', '/workspaces/{workspaceId}/members'],
  ['PUT', '/workspaces/{workspaceId}/members/{memberId}'],
  ['DELETE', '/workspaces/{workspaceId}/members/{memberId}'],
  ['GET', '/workspaces/{workspaceId}/projects'],
  ['POST', '/workspaces/{workspaceId}/projects'],
  ['GET', '/workspaces/{workspaceId}/projects/{projectId}'],
  ['PUT', '/workspaces/{workspaceId}/projects/{projectId}'],
  ['DELETE', '/workspaces/{workspaceId}/projects/{projectId}'],
  ['GET', '/workspaces/{workspaceId}/projects/{projectId}/members'],
  ['POST', '/workspaces/{workspaceId}/projects/{projectId}/members'],
  ['PUT', '/workspaces/{workspaceId}/projects/{projectId}/members/{memberId}'],
  ['DELETE', '/workspaces/{workspaceId}/projects/{projectId}/members/{memberId}'],
  // GET /workspaces/{workspaceId}/metrics is checked with the metrics (test/logs/metrics.test.ts).
];

describe('health', () => {
  it('/healthz answers 200 without a token', async () => {
    const res = await t.call('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('/readyz answers 200 with database and queue up', async () => {
    const res = await t.call('GET', '/readyz', { token: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, database: true, queue: true });
  });
});

describe('OpenAPI document', () => {
  let doc: {
    openapi: string;
    paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>>;
    components: { schemas: Record<string, unknown> };
  };

  beforeAll(async () => {
    const res = await t.call('GET', '/v1/openapi.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.json;
  });

  it('is OpenAPI 3 with the shared error schema', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components.schemas.Error).toBeDefined();
  });

  it.each(SEED_PATHS)('documents %s %s', (method, path) => {
    const op = doc.paths[path]?.[method.toLowerCase()];
    expect(op, `${method} ${path}`).toBeDefined();
    const success = Object.keys(op.responses).filter((code) => code.startsWith('2'));
    const expected = method === 'POST' ? '201' : method === 'DELETE' ? '204' : '200';
    expect(success).toEqual([expected]);
    // 404 only where the path names something that may not exist (/accounts/me and /workspaces do not).
    for (const code of ['401', '403', ...(path.includes('{') ? ['404'] : [])]) expect(op.responses[code], code).toBeDefined();
    if (!path.includes('{')) expect(op.responses['404']).toBeUndefined();
    for (const name of path.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
      expect(op.parameters?.some((p) => p.name === name && p.in === 'path'), name).toBe(true);
    }
  });

  it('list operations document page, size and withCount', () => {
    for (const path of ['/workspaces', '/workspaces/{workspaceId}/members', '/workspaces/{workspaceId}/projects']) {
      const names = (doc.paths[path].get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      expect(names, path).toEqual(expect.arrayContaining(['page', 'size', 'withCount']));
    }
  });

  it('every documented /accounts and /workspaces operation is routed (no 405, no unknown-path 404)', async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!/^\/(accounts|workspaces)(\/|$)/.test(path)) continue;
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-7000-8000-000000000000');
      for (const method of Object.keys(item)) {
        const res = await t.call(method.toUpperCase(), `/v1${concrete}`, method === 'get' || method === 'delete' ? {} : { body: {} });
        expect(res.status, `${method} ${path}`).not.toBe(405);
        if (res.status === 404) expect(res.json.error.message, `${method} ${path}`).not.toMatch(/^No route/);
      }
    }
  });
});

describe('docs', () => {
  it('GET /docs/ answers an HTML page', async () => {
    const res = await t.call('GET', '/docs/', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html/i);
    expect(res.text).toContain('swagger');
  });
});
