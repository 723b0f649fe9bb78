import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { MISSING_ID, createWorkspace, expectError, invite, outsider, type Person } from './helpers.js';

let t: TestApi;
let workspaceId: string;
let member: Person;
let stranger: Person;

beforeAll(async () => {
  t = await startTestApi();
  workspaceId = await createWorkspace(t, 'Errors');
  member = await invite(t, workspaceId, 'MEMBER');
  stranger = await outsider(t);
});
afterAll(() => t?.close());

const json = { 'content-type': 'application/json' };

describe('X-Request-Id', () => {
  it('echoes a safe client id on success, on errors and outside /v1', async () => {
    const id = 'client-req.42:abc_DEF';
    for (const [path, token] of [['/v1/accounts/me', undefined], ['/v1/accounts/me', null], ['/v1/nope', undefined], ['/healthz', null]] as const) {
      const res = await t.call('GET', path, { token, headers: { 'x-request-id': id } });
      expect(res.headers.get('x-request-id'), path).toBe(id);
    }
  });

  it('generates one when none is sent or the sent one is unsafe or too long', async () => {
    const none = await t.call('GET', '/v1/accounts/me');
    expect(none.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    const max = 'a'.repeat(128);
    expect((await t.call('GET', '/v1/accounts/me', { headers: { 'x-request-id': max } })).headers.get('x-request-id')).toBe(max);
    for (const bad of ['a'.repeat(129), 'has space', 'semi;colon', '<script>']) {
      const res = await t.call('GET', '/v1/accounts/me', { headers: { 'x-request-id': bad } });
      const got = res.headers.get('x-request-id');
      expect(got).toBeTruthy();
      expect(got).not.toBe(bad);
      expect(got).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    }
  });

  it('differs between requests', async () => {
    const a = await t.call('GET', '/v1/accounts/me');
    const b = await t.call('GET', '/v1/accounts/me');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('401 UNAUTHORIZED', () => {
  it.each([
    ['no Authorization header', {}],
    ['no Bearer prefix', { authorization: 'tat_' + 'a'.repeat(43) }],
    ['Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['malformed token', { authorization: 'Bearer nonsense' }],
    ['unknown well-formed token', { authorization: 'Bearer tat_' + 'a'.repeat(43) }],
  ])('%s', async (_label, headers) => {
    const res = await t.call('GET', '/v1/accounts/me', { token: null, headers });
    expectError(res, 401, 'UNAUTHORIZED');
  });
});

describe('routing', () => {
  it('unknown path → 404 NOT_FOUND, inside and outside /v1', async () => {
    expectError(await t.call('GET', '/v1/nothing/here/at/all'), 404, 'NOT_FOUND');
    expectError(await t.call('GET', '/v1/workspaces/x/y/z/w'), 404, 'NOT_FOUND');
    expectError(await t.call('GET', '/no-such-page'), 404, 'NOT_FOUND');
  });

  it('known path, wrong method → 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', '/v1/workspaces', ['GET', 'POST']],
      ['PATCH', '/v1/accounts/me', ['GET', 'PUT']],
      ['POST', `/v1/workspaces/${workspaceId}`, ['DELETE', 'GET', 'PUT']],
      ['GET', `/v1/workspaces/${workspaceId}/members/${MISSING_ID}`, ['DELETE', 'PUT']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await t.call(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      const allow = (res.headers.get('allow') ?? '').split(',').map((s) => s.trim()).sort();
      expect(allow, `${method} ${path}`).toEqual(allowed);
    }
  });
});

describe('body errors', () => {
  it('malformed JSON → 400 INVALID_JSON', async () => {
    const res = await t.call('POST', '/v1/workspaces', { raw: '{"name": ', headers: json });
    expectError(res, 400, 'INVALID_JSON');
  });

  it('a JSON body that is not an object → 400', async () => {
    for (const raw of ['[1,2]', '"text"', '42', 'null']) {
      const res = await t.call('POST', '/v1/workspaces', { raw, headers: json });
      expect(res.status, raw).toBe(400);
      expect(['BAD_REQUEST', 'INVALID_JSON']).toContain(res.json.error.code);
    }
  });

  it('wrong content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await t.call('POST', '/v1/workspaces', { raw: '{"name":"x"}', headers: { 'content-type': type } });
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const charset = await t.call('POST', '/v1/workspaces', { raw: '{"name":"ok"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(charset.status).toBe(201);
  });

  it('wrong JSON type, missing field, unknown enum → 400 BAD_REQUEST naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/workspaces', { name: 5 }, 'name'],
      ['POST', '/v1/workspaces', { name: true }, 'name'],
      ['POST', '/v1/workspaces', { name: ['a'] }, 'name'],
      ['POST', '/v1/workspaces', {}, 'name'],
      ['PUT', `/v1/workspaces/${workspaceId}`, { name: 12 }, 'name'],
      ['POST', `/v1/workspaces/${workspaceId}/members`, { email: 'a@example.com', role: 'KING' }, 'role'],
      ['POST', `/v1/workspaces/${workspaceId}/members`, { role: 'MEMBER' }, 'email'],
      ['POST', `/v1/workspaces/${workspaceId}/members`, { email: 'not-an-email', role: 'MEMBER' }, 'email'],
      ['POST', `/v1/workspaces/${workspaceId}/projects`, { name: 'p', locales: 'en' }, 'locales'],
      ['PUT', '/v1/accounts/me', { name: 7 }, 'name'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await t.call(method, path, { body });
      const error = expectError(res, 400, 'BAD_REQUEST');
      expect(error.message, JSON.stringify(body)).toContain(field);
    }
  });

  // KNOWN BUG in src/http/v1.ts (reported, not mine to fix): a POST/PUT without a body and without
  // Content-Type is answered 415 before authentication and access checks. These flip to plain `it`
  // once jsonBody() treats a body-less request as `{}` of type application/json.
  it('a body-less POST without Content-Type is a missing field (400), not 415', async () => {
    expectError(await t.call('POST', '/v1/workspaces'), 400, 'BAD_REQUEST');
  });
  it('a body-less POST without a token is 401, not 415', async () => {
    expectError(await t.call('POST', '/v1/workspaces', { token: null }), 401, 'UNAUTHORIZED');
  });
  it('a body-less PUT on an unknown workspace is 404, not 415', async () => {
    expectError(await t.call('PUT', `/v1/workspaces/${MISSING_ID}`), 404, 'NOT_FOUND');
  });
  it('a body-less POST with Content-Type: application/json is not JSON (400 INVALID_JSON)', async () => {
    const res = await t.call('POST', '/v1/workspaces', { headers: json });
    expectError(res, 400, 'INVALID_JSON');
  });
});

describe('check order (401 → 403 → 404 → 400/415/413)', () => {
  const malformed = { raw: '{oops', headers: json };

  it('no token + malformed JSON → 401', async () => {
    expectError(await t.call('POST', '/v1/workspaces', { ...malformed, token: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, { ...malformed, token: null }), 401, 'UNAUTHORIZED');
  });

  it('no token + wrong content type → 401', async () => {
    const res = await t.call('POST', '/v1/workspaces', { raw: 'x', headers: { 'content-type': 'text/plain' }, token: null });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('no role in the workspace + malformed JSON → 403', async () => {
    const res = await t.call('PUT', `/v1/workspaces/${workspaceId}`, { ...malformed, token: stranger.token });
    expectError(res, 403, 'FORBIDDEN');
  });

  it('insufficient role + malformed JSON or wrong type → 403', async () => {
    expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, { ...malformed, token: member.token }), 403, 'FORBIDDEN');
    expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, { body: { name: 5 }, token: member.token }), 403, 'FORBIDDEN');
    expectError(await t.call('POST', `/v1/workspaces/${workspaceId}/projects`, { raw: 'x', headers: { 'content-type': 'text/plain' }, token: member.token }), 403, 'FORBIDDEN');
  });

  it('nonexistent workspace + malformed JSON → 404', async () => {
    expectError(await t.call('PUT', `/v1/workspaces/${MISSING_ID}`, malformed), 404, 'NOT_FOUND');
    expectError(await t.call('PUT', '/v1/workspaces/not-a-uuid', malformed), 404, 'NOT_FOUND');
    expectError(await t.call('POST', `/v1/workspaces/${MISSING_ID}/projects`, { body: { name: 5 } }), 404, 'NOT_FOUND');
  });

  it('role held + malformed JSON → 400', async () => {
    expectError(await t.call('PUT', `/v1/workspaces/${workspaceId}`, malformed), 400, 'INVALID_JSON');
  });
});

describe('list query parameters', () => {
  it.each(['size=1001', 'size=0', 'page=0', 'page=-1', 'size=1.5', 'size=abc', 'page=x'])('%s → 400 INVALID_QUERY', async (query) => {
    for (const path of ['/v1/workspaces', `/v1/workspaces/${workspaceId}/members`, `/v1/workspaces/${workspaceId}/projects`]) {
      expectError(await t.call('GET', `${path}?${query}`), 400, 'INVALID_QUERY');
    }
  });

  it('size=1000 and page=1 are accepted', async () => {
    const res = await t.call('GET', '/v1/workspaces?size=1000&page=1');
    expect(res.status).toBe(200);
    expect(res.json.pagination).toMatchObject({ page: 1, size: 1000 });
  });

  it('pagination counts, pages and hasNext; withCount=false gives null total/pages', async () => {
    const fresh = await outsider(t); // member of exactly one workspace
    for (let i = 0; i < 4; i++) await createWorkspace(t, `P${i}`, fresh.token);
    const p1 = await t.call('GET', '/v1/workspaces?size=2', { token: fresh.token });
    expect(p1.status).toBe(200);
    expect(p1.json.list).toHaveLength(2);
    expect(p1.json.pagination).toEqual({ page: 1, size: 2, total: 5, pages: 3, hasNext: true });
    const p3 = await t.call('GET', '/v1/workspaces?size=2&page=3', { token: fresh.token });
    expect(p3.json.list).toHaveLength(1);
    expect(p3.json.pagination).toEqual({ page: 3, size: 2, total: 5, pages: 3, hasNext: false });
    const beyond = await t.call('GET', '/v1/workspaces?size=2&page=9', { token: fresh.token });
    expect(beyond.json).toEqual({ list: [], pagination: { page: 9, size: 2, total: 5, pages: 3, hasNext: false } });
    const uncounted = await t.call('GET', '/v1/workspaces?size=2&page=2&withCount=false', { token: fresh.token });
    expect(uncounted.json.list).toHaveLength(2);
    expect(uncounted.json.pagination).toEqual({ page: 2, size: 2, total: null, pages: null, hasNext: true });
    const counted = await t.call('GET', '/v1/workspaces?withCount=true', { token: fresh.token });
    expect(counted.json.pagination).toEqual({ page: 1, size: 20, total: 5, pages: 1, hasNext: false });
    const ids = new Set([...p1.json.list, ...uncounted.json.list, ...p3.json.list].map((w: { id: string }) => w.id));
    expect(ids.size).toBe(5);
  });
});

describe('413 PAYLOAD_TOO_LARGE (BODY_MAX_BYTES=1000)', () => {
  let small: TestApi;
  beforeAll(async () => {
    small = await startTestApi({ BODY_MAX_BYTES: '1000' });
  });
  afterAll(() => small?.close());

  it('answers 413 past the limit and accepts a body under it', async () => {
    expectError(await small.call('POST', '/v1/workspaces', { body: { name: 'x'.repeat(2000) } }), 413, 'PAYLOAD_TOO_LARGE');
    expect((await small.call('POST', '/v1/workspaces', { body: { name: 'x'.repeat(100) } })).status).toBe(201);
  });

  it('still answers 401 first without a token, and 404 first for an unknown workspace', async () => {
    expectError(await small.call('POST', '/v1/workspaces', { body: { name: 'x'.repeat(2000) }, token: null }), 401, 'UNAUTHORIZED');
    expectError(await small.call('PUT', `/v1/workspaces/${MISSING_ID}`, { body: { name: 'x'.repeat(2000) } }), 404, 'NOT_FOUND');
  });
});
