import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectStatus } from '../helpers/expect.js';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildHostileWorld, fillPath, type HostileWorld } from './world.js';

/**
 * Inputs that must be refused, not reinterpreted (docs/contents.md#list-queries, docs/reliability.md#errors): `page`/`size` that are not
 * plain decimal integers, empty, repeated or bracketed query parameters, filter values of the
 * wrong JSON type, and empty JSON bodies. On every list endpoint and every write, with the documented
 * status and code; and the valid forms still work.
 */

let t: TestApi;
let world: HostileWorld;
let doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
/** Documented GET paths that take `page` (every list endpoint). */
let lists: string[];

beforeAll(async () => {
  t = await startTestApi({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
  world = await buildHostileWorld(t);
  doc = (await t.call('GET', '/v1/openapi.json', { token: null })).json;
  lists = Object.entries(doc.paths)
    .filter(([, item]) => item.get?.parameters?.some((p) => p.name === 'page' && p.in === 'query'))
    .map(([path]) => path);
});
afterAll(async () => t?.close());

const owner = () => world.creds.ownerA;
const get = (path: string, token: string | null = owner()) => t.call('GET', `/v1${path}`, { token });

/** Query strings every list endpoint refuses with 400 INVALID_QUERY (written as sent, percent-encoding included). */
const BAD_PAGING = [
  'page=0x10',
  'size=010',
  'page=01',
  'page=1e1',
  'size=1E1',
  'page=',
  'size=',
  'page=%201',
  'size=5%20',
  'page=%091',
  'page=+1',
  'page=-0',
  'size=1.0',
  'size=5.5',
  'page=0',
  'size=1001',
  'page=abc',
  'page=Infinity',
  'page=9007199254740993',
  'page[]=1',
  'size[]=5',
  'page[0]=1',
  'page=1&page=2',
  'size=5&size=5',
  'withCount=',
  'withCount=yes',
];

describe('page and size on every list endpoint', () => {
  it('covers the list endpoints', () => {
    // Contents, tables, columns, categories, variables, translations, files, api keys, webhooks,
    // deliveries, logs, workspaces, projects, and both kinds of members.
    expect(lists.length).toBeGreaterThanOrEqual(15);
    for (const expected of ['/{projectId}/logs', '/{projectId}/categories', '/{projectId}/api-keys', '/{projectId}/webhooks/{webhookId}/deliveries', '/workspaces/{workspaceId}/members']) {
      expect(lists).toContain(expected);
    }
  });

  it('anything but one plain decimal integer in range is 400 INVALID_QUERY naming the parameter', async () => {
    for (const path of lists) {
      const filled = fillPath(path, world.ids);
      for (const query of BAD_PAGING) {
        const res = await get(`${filled}?${query}`);
        expect(res.status, `${filled}?${query}`).toBe(400);
        const error = expectError(res, 400, 'INVALID_QUERY');
        const name = /^[a-zA-Z]+/.exec(query)![0];
        expect(error.message, `${path}?${query}`).toContain(name);
      }
    }
  });

  it('page=2&size=5 (and withCount=false) still work everywhere', async () => {
    for (const path of lists) {
      const filled = fillPath(path, world.ids);
      const body = expectStatus(await get(`${filled}?page=2&size=5`), 200);
      expect(body.pagination, path).toMatchObject({ page: 2, size: 5 });
      const uncounted = expectStatus(await get(`${filled}?page=1&size=1000&withCount=false`), 200);
      expect(uncounted.pagination, path).toMatchObject({ page: 1, size: 1000, total: null, pages: null });
    }
  });

  it('401 and 403 come before the 400', async () => {
    for (const path of lists.filter((p) => p.startsWith('/{projectId}'))) {
      const filled = fillPath(path, world.ids);
      expectError(await get(`${filled}?page=0x10`, null), 401, 'UNAUTHORIZED');
      expectError(await get(`${filled}?page[]=1`, world.creds.writeKeyB), 403, 'FORBIDDEN');
    }
  });

  it('parameters an operation does not declare are still ignored, brackets or not', async () => {
    const filled = fillPath('/{projectId}/tables', world.ids);
    expectStatus(await get(`${filled}?_=&cache[]=1&x=1&x=2`), 200);
  });

  it('other typed parameters follow the same rules (logs: status, method)', async () => {
    const logs = fillPath('/{projectId}/logs', world.ids);
    for (const query of ['status=2e2', 'status=0x20', 'status=0200', 'status=', 'status=200&status=404', 'method=', 'apiKeyId=']) {
      expectError(await get(`${logs}?${query}`), 400, 'INVALID_QUERY');
    }
    expectStatus(await get(`${logs}?status=200&method=GET`), 200);
  });
});

describe('contents list parameters', () => {
  let contents: string;

  beforeAll(async () => {
    const p = `/v1/${world.ids.projectId}`;
    const table = expectStatus(await t.call('POST', `${p}/tables`, { token: owner(), body: { key: 'strict', name: 'Strict' } }), 201);
    for (const column of [{ name: 'price', type: 'number' }, { name: 'qty', type: 'integer' }, { name: 'flag', type: 'boolean' }, { name: 'label', type: 'text' }]) {
      expectStatus(await t.call('POST', `${p}/tables/${table.id}/columns`, { token: owner(), body: column }), 201);
    }
    contents = `/${world.ids.projectId}/tables/strict/contents`;
    for (const data of [{ price: 5, qty: 1, flag: true, label: 'five' }, { price: 7.5, qty: 2, flag: false, label: '7' }, { price: 50, qty: 3, label: 'fifty' }]) {
      expectStatus(await t.call('POST', `/v1${contents}`, { token: owner(), body: { data, status: 'PUBLISHED' } }), 201);
    }
  });

  const filtered = (filter: unknown, extra = '') => get(`${contents}?filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`);
  const labels = (res: CallResult) => (expectStatus(res, 200).list as { data: { label: string } }[]).map((r) => r.data.label).sort();

  it('empty op, fields, sort, filter, locale and cursor are 400 INVALID_QUERY', async () => {
    for (const name of ['op', 'fields', 'sort', 'filter', 'locale', 'cursor']) {
      const error = expectError(await get(`${contents}?${name}=`), 400, 'INVALID_QUERY');
      expect(error.message).toContain(name);
    }
    expectError(await get(`${contents}?op=and&op=or`), 400, 'INVALID_QUERY');
    expectError(await get(`${contents}?filter[]=x`), 400, 'INVALID_QUERY');
    const { projectId, tableId, contentsId } = world.ids;
    expectError(await get(`/${projectId}/tables/${tableId}/contents/${contentsId}?locale=`), 400, 'INVALID_QUERY');
  });

  it('filter values of the wrong JSON type are 400 INVALID_QUERY', async () => {
    const wrong = [
      { i: 'price', w: 'eq', v: true },
      { i: 'price', w: 'gt', v: {} },
      { i: 'price', w: 'eq', v: [1, 2] },
      { i: 'price', w: 'in', v: 5 },
      { i: 'price', w: 'in', v: { a: 1 } },
      { i: 'price', w: 'in', v: [5, true] },
      { i: 'price', w: 'between', v: [1, null] },
      { i: 'qty', w: 'eq', v: '1.5' },
      { i: 'flag', w: 'eq', v: 1 },
      { i: 'flag', w: 'eq', v: 'yes' },
      { i: 'flag', w: 'eq', v: {} },
      { i: 'flag', w: 'null', v: 1 },
      { i: 'label', w: 'eq', v: 7 },
      { i: 'label', w: 'contains', v: true },
      { i: 'label', w: 'eq', v: null },
      { i: 'status', w: 'eq', v: 1 },
      { i: 'createdAt', w: 'gt', v: 1700000000000 },
    ];
    for (const item of wrong) {
      const error = expectError(await filtered([item]), 400, 'INVALID_QUERY');
      expect(error.message, JSON.stringify(item)).toMatch(/^filter\[0\]\.v/);
    }
  });

  it('string values are coerced; values of the column’s own type are taken as they are', async () => {
    expect(labels(await filtered([{ i: 'price', w: 'in', v: '5' }]))).toEqual(['five']);
    expect(labels(await filtered([{ i: 'price', w: 'in', v: '5, 50' }]))).toEqual(['fifty', 'five']);
    expect(labels(await filtered([{ i: 'price', w: 'in', v: [5, '7.5'] }]))).toEqual(['7', 'five']);
    expect(labels(await filtered([{ i: 'price', w: 'gte', v: '7.5' }]))).toEqual(['7', 'fifty']);
    expect(labels(await filtered([{ i: 'price', w: 'between', v: '5,10' }]))).toEqual(['7', 'five']);
    expect(labels(await filtered([{ i: 'qty', w: 'eq', v: '2' }]))).toEqual(['7']);
    expect(labels(await filtered([{ i: 'flag', w: 'eq', v: 'true' }]))).toEqual(['five']);
    expect(labels(await filtered([{ i: 'flag', w: 'eq', v: false }]))).toEqual(['7']);
    expect(labels(await filtered([{ i: 'flag', w: 'null', v: 'true' }]))).toEqual(['fifty']);
    expect(labels(await filtered([{ i: 'label', w: 'eq', v: '7' }]))).toEqual(['7']);
    expect(labels(await filtered([{ i: 'status', w: 'eq', v: 'published' }, { i: 'qty', w: 'lt', v: 3 }], '&op=and'))).toEqual(['7', 'five']);
    expect(labels(await filtered([{ i: 'qty', w: 'eq', v: 1 }, { i: 'qty', w: 'eq', v: '3' }], '&op=OR&page=1&size=5'))).toEqual(['fifty', 'five']);
  });
});

/** A write with exactly these headers and body bytes (fetch would add its own Content-Type). */
function rawWrite(method: string, path: string, headers: Record<string, string>, body?: string | Buffer | Buffer[]): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}/v1${path}`, { method, headers: { authorization: `Bearer ${owner()}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        const fetchHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') fetchHeaders.set(name, value);
        resolve({ status: res.statusCode!, headers: fetchHeaders, json, text });
      });
    });
    req.on('error', reject);
    if (Array.isArray(body)) {
      // Parts written one by one (chunked), each flushed before the next.
      (async () => {
        for (const part of body) await new Promise<void>((done) => req.write(part, () => setTimeout(done, 5)));
        req.end();
      })().catch(reject);
    } else req.end(body);
  });
}

describe('empty JSON bodies', () => {
  let writes: [method: string, path: string][];

  beforeAll(() => {
    // Operations documented with a body of another type only (the streamed imports) are left out.
    const takesJson = (op: unknown) => {
      const content = (op as { requestBody?: { content?: Record<string, unknown> } }).requestBody?.content;
      return !content || 'application/json' in content || 'multipart/form-data' in content;
    };
    writes = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m, op]) => ['post', 'put', 'patch'].includes(m) && takesJson(op))
        .map(([m]): [string, string] => [m.toUpperCase(), path]),
    );
  });

  it('are 400 INVALID_JSON on every operation that takes a JSON body, declared length 0 or chunked', async () => {
    expect(writes.length).toBeGreaterThan(25);
    for (const [method, path] of writes) {
      const filled = fillPath(path, world.ids);
      // The upload takes multipart/form-data; JSON there is the wrong type.
      const [status, code] = method === 'POST' && path === '/{projectId}/files' ? [415, 'UNSUPPORTED_MEDIA_TYPE'] : [400, 'INVALID_JSON'];
      for (const length of [{ 'content-length': '0' }, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
        for (const type of ['application/json', 'application/json; charset=utf-8']) {
          const res = await rawWrite(method, filled, { 'content-type': type, ...length }, '');
          expect([res.status, res.json?.error?.code], `${method} ${path} ${type} ${JSON.stringify(length)}: ${res.text}`).toEqual([status, code]);
        }
      }
    }
  });

  it('are read byte for byte as JSON in UTF-8: a byte order mark skipped, other bytes refused, gzip inflated, parts joined', async () => {
    const { projectId, tableId } = world.ids;
    const path = `/${projectId}/tables/${tableId}`;
    const json = { 'content-type': 'application/json' };
    const named = async (res: CallResult, name: string) => expect([res.status, res.json?.name], res.text).toEqual([200, name]);
    await named(await rawWrite('PUT', path, json, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"BOM"}')])), 'BOM');
    const latin1 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    expect(expectError(await rawWrite('PUT', path, json, latin1), 400, 'INVALID_JSON').message).toBe('Request body is not valid UTF-8');
    expect(expectError(await rawWrite('PUT', path, json, '{"name":'), 400, 'INVALID_JSON').message).toBe('Request body is not valid JSON');
    await named(await rawWrite('PUT', path, { ...json, 'content-encoding': 'gzip' }, gzipSync('{"name":"zipped"}')), 'zipped');
    // A character split between two parts.
    const body = Buffer.from('{"name":"é ü 😀 parts"}');
    await named(await rawWrite('PUT', path, json, [body.subarray(0, 11), body.subarray(11, 18), body.subarray(18)]), 'é ü 😀 parts');
  });

  it('the operations that took an empty body as {} (account, contents update, actions) included', async () => {
    const { projectId, tableId, contentsId, apiKeyId, webhookId, deliveryId } = world.ids;
    const json = { 'content-type': 'application/json', 'content-length': '0' };
    for (const path of ['/accounts/me', `/${projectId}/tables/${tableId}/contents/${contentsId}`, `/${projectId}/tables/${tableId}`, `/${projectId}/api-keys/${apiKeyId}`]) {
      expectError(await rawWrite('PUT', path, json), 400, 'INVALID_JSON');
    }
    for (const path of [`/${projectId}/api-keys/${apiKeyId}/rotate`, `/${projectId}/webhooks/${webhookId}/rotate-secret`, `/${projectId}/webhooks/${webhookId}/deliveries/${deliveryId}/retry`]) {
      expectError(await rawWrite('POST', path, json), 400, 'INVALID_JSON');
    }
  });

  it('other declared types with no body are 415; no type and no body is no options; {} works', async () => {
    const { projectId, webhookId } = world.ids;
    const rotate = `/${projectId}/webhooks/${webhookId}/rotate-secret`;
    expectError(await rawWrite('POST', rotate, { 'content-type': 'text/plain', 'content-length': '0' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await rawWrite('POST', rotate, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectStatus(await rawWrite('POST', rotate, { 'content-length': '0' }), 200);
    expectStatus(await rawWrite('POST', rotate, { 'content-type': 'application/json' }, '{}'), 200);
    expectStatus(await rawWrite('PUT', '/accounts/me', { 'content-type': 'application/json' }, '{}'), 200);
    // Whitespace is no JSON text either.
    expectError(await rawWrite('PUT', '/accounts/me', { 'content-type': 'application/json' }, ' \n'), 400, 'INVALID_JSON');
  });

  it('401, 403 and 404 still come first', async () => {
    const { projectId, tableId } = world.ids;
    const json = { 'content-type': 'application/json', 'content-length': '0' };
    const contents = `/${projectId}/tables/${tableId}/contents`;
    expectError(await rawWrite('POST', contents, { ...json, authorization: '' }), 401, 'UNAUTHORIZED');
    expectError(await rawWrite('POST', contents, { ...json, authorization: `Bearer ${world.creds.readKeyA}` }), 403, 'FORBIDDEN');
    expectError(await rawWrite('PUT', `${contents}/0190b0a0-0000-7000-8000-00000000c0de`, json), 404, 'NOT_FOUND');
  });

  it('/trpc follows tRPC: an empty body is no input, which the input schema refuses (400 BAD_REQUEST)', async () => {
    const post = (procedure: string, body: string) =>
      fetch(`${t.url}/trpc/${procedure}`, { method: 'POST', headers: { authorization: `Bearer ${owner()}`, 'content-type': 'application/json' }, body });
    const errorOf = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { error: { data: { error: { code: string } } } }).error.data.error.code });
    // tRPC reads an empty body as "no input" (undefined), which an object schema refuses.
    expect(await errorOf(await post('accounts.updateMe', ''))).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect(await errorOf(await post('workspaces.create', ''))).toEqual({ status: 400, code: 'BAD_REQUEST' });
    // A body that does not parse is tRPC's own BAD_REQUEST (its input reader's), not taken as {}.
    expect(await errorOf(await post('accounts.updateMe', '{'))).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect((await post('accounts.updateMe', '{}')).status).toBe(200);
  });

  it('/trpc takes JSON numbers for page and size, not strings to coerce', async () => {
    const list = (input: unknown) =>
      fetch(`${t.url}/trpc/tables.list?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { authorization: `Bearer ${owner()}` } });
    const { projectId } = world.ids;
    expect((await list({ projectId, page: 2, size: 5 })).status).toBe(200);
    for (const bad of [{ page: '0x10' }, { page: '2' }, { size: '' }, { page: true }]) {
      const res = await list({ projectId, ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('INVALID_QUERY');
    }
  });
});
