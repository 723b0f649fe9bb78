import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { buildWorld, contentsPath, createTable, tablesPath, type Table, type World } from '../contents/fixture.js';
import { callWithin, expectHandled, rawJson, snapshot, uniq } from './fixture.js';

/**
 * Regressions: valid JSON that PostgreSQL cannot store (src/shared/json-guard.ts). Before the
 * fix each of these was a 500 or a 503 (and a NUL in a query parameter left the ORM's pool
 * unable to close); now a 400 naming the field, on both faces, with the database unchanged.
 */

let t: TestApi;
let w: World;
let table: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'meta', type: 'json' },
  ]);
});
afterAll(() => t?.close());

const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** 400 with `code` whose message names `field`, and nothing written. */
async function refused(method: string, path: string, options: Parameters<TestApi['call']>[2], code: string, field: string) {
  const before = await snapshot(t);
  const res = await callWithin(t, method, path, options);
  expectHandled(res, `${method} ${path}`);
  expect(expectError(res, 400, code).message, res.text).toContain(field);
  expect(await snapshot(t)).toEqual(before);
}

describe('the database snapshot these tests compare', () => {
  it('covers every application table and changes with a successful write', async () => {
    const before = await snapshot(t);
    for (const name of ['contents', 'content_table', 'workspace', 'api_key', 'webhook', 'event_outbox', 'contents:checksum', 'variable:checksum']) {
      expect(before[name], name).toBeDefined();
    }
    const res = await callWithin(t, 'POST', `/v1/${w.projectId}/variables`, { body: { key: uniq('v'), value: 1 } });
    expect(res.status, res.text).toBe(201);
    const after = await snapshot(t);
    expect(after.variable).toBe(String(Number(before.variable) + 1));
    expect(after['variable:checksum']).not.toBe(before['variable:checksum']);
  });
});

describe('REST bodies', () => {
  it('a NUL character in a text value, a json value, a json key or a name is 400 naming the field', async () => {
    const rows = contentsPath(w, table.key);
    await refused('POST', rows, { body: { data: { title: 'a\u0000b' } } }, 'BAD_REQUEST', 'data.title');
    await refused('POST', rows, { body: { data: { meta: { list: ['ok', 'x\u0000'] } } } }, 'BAD_REQUEST', 'data.meta.list.1');
    await refused('POST', rows, { body: { data: { meta: { 'k\u0000': 1 } } } }, 'BAD_REQUEST', 'key contains a NUL');
    await refused('POST', tablesPath(w), { body: { key: uniq('t'), name: 'a\u0000' } }, 'BAD_REQUEST', 'name');
    await refused('POST', '/v1/workspaces', { body: { name: '\u0000' } }, 'BAD_REQUEST', 'name');
  });

  it('an unpaired surrogate (\\ud800, \\udfff) in a value or key is 400, not a jsonb error', async () => {
    const rows = contentsPath(w, table.key);
    await refused('POST', rows, rawJson('{"data":{"title":"a\\ud800b"}}'), 'BAD_REQUEST', 'data.title');
    await refused('POST', rows, rawJson('{"data":{"meta":{"\\udc00":1}}}'), 'BAD_REQUEST', 'unpaired');
    await refused('POST', tablesPath(w), rawJson(`{"key":"${uniq('t')}","name":"x","description":"\\udfff"}`), 'BAD_REQUEST', 'description');
  });

  it('a number beyond the double range (1e400) is 400, not silently stored as null', async () => {
    await refused('POST', `/v1/${w.projectId}/variables`, rawJson('{"key":"huge","value":1e400}'), 'BAD_REQUEST', 'value');
    await refused('POST', contentsPath(w, table.key), rawJson('{"data":{"meta":[-1e999]}}'), 'BAD_REQUEST', 'data.meta.0');
  });

  it('10,000 (and 100,000) levels of nesting are 400, not a stack overflow; 60 levels are stored', async () => {
    for (const levels of [10_000, 100_000]) {
      await refused('POST', contentsPath(w, table.key), rawJson(`{"data":{"meta":${deepArray(levels)}}}`), 'BAD_REQUEST', 'deeper than');
      // In a key the schema would drop, too: the adapter serialised the whole body first.
      await refused('POST', tablesPath(w), rawJson(`{"key":"${uniq('t')}","name":"y","extra":${deepArray(levels)}}`), 'BAD_REQUEST', 'extra');
    }
    const res = await callWithin(t, 'POST', contentsPath(w, table.key), rawJson(`{"data":{"meta":${deepArray(60)}}}`));
    expect(res.status, res.text).toBe(201);
    expect(JSON.stringify(res.json.data.meta)).toBe(deepArray(60));
  });

  it('bytes that are not UTF-8 are 400 INVALID_JSON (not replaced by U+FFFD); another charset is 415', async () => {
    const body = Buffer.concat([Buffer.from(`{"key":"${uniq('t')}","name":"`), Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    await refused('POST', tablesPath(w), rawJson(body), 'INVALID_JSON', 'UTF-8');
    const before = await snapshot(t);
    const latin1 = await callWithin(t, 'POST', tablesPath(w), rawJson(`{"key":"${uniq('t')}","name":"x"}`, { 'content-type': 'application/json; charset=iso-8859-1' }));
    expectError(latin1, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await snapshot(t)).toEqual(before);
    const utf8 = await callWithin(t, 'POST', tablesPath(w), rawJson(`{"key":"${uniq('t')}","name":"x"}`, { 'content-type': 'application/json; charset=UTF-8' }));
    expect(utf8.status, utf8.text).toBe(201);
  });

  it('still answers 401 and 403 before reporting the value', async () => {
    const body = { data: { title: 'a\u0000b' } };
    expectError(await callWithin(t, 'POST', contentsPath(w, table.key), { body, token: null }), 401, 'UNAUTHORIZED');
    expectError(await callWithin(t, 'POST', contentsPath(w, table.key), { body, token: w.readKey }), 403, 'FORBIDDEN');
  });
});

describe('query strings, uploads and the tRPC face', () => {
  it('a NUL in a list filter parameter is 400 INVALID_QUERY (was a 503 that hung shutdown)', async () => {
    await refused('GET', `/v1/${w.projectId}/variables?key=a%00`, {}, 'INVALID_QUERY', 'key');
    await refused('GET', `/v1/${w.projectId}/translations?locale=en&key=%00`, {}, 'INVALID_QUERY', 'key');
    await refused('GET', `/v1/${w.projectId}/files?mimeType=text/%00`, {}, 'INVALID_QUERY', 'mimeType');
  });

  it('a NUL in a file name (RFC 5987 filename*) never reaches the database: it goes with the other control characters', async () => {
    const multipart = (filename: string) =>
      [
        '--b',
        `Content-Disposition: form-data; name="file"; filename="x.txt"; filename*=UTF-8''${filename}`,
        'Content-Type: text/plain',
        '',
        'hello',
        '--b--',
        '',
      ].join('\r\n');
    const post = (filename: string) => callWithin(t, 'POST', `/v1/${w.projectId}/files`, { token: w.writeKey, raw: multipart(filename), headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    const cleaned = await post('a%00b.txt');
    expect(cleaned.status, cleaned.text).toBe(201);
    expect(cleaned.json.name).toBe('ab.txt');
    // Nothing but control characters: no name left, so the default one.
    const emptied = await post('%00%01');
    expect(emptied.status, emptied.text).toBe(201);
    expect(emptied.json.name).toBe('file');
  });

  it('/trpc refuses the same values with the same error under data.error', async () => {
    for (const raw of [
      JSON.stringify({ projectId: w.projectId, key: uniq('t'), name: 'a\u0000' }),
      `{"projectId":"${w.projectId}","key":"${uniq('t')}","name":"\\ud800"}`,
    ]) {
      const before = await snapshot(t);
      const res = await callWithin(t, 'POST', '/trpc/tables.create', rawJson(raw));
      expect(res.status, res.text).toBe(400);
      expect(res.json.error.data.error).toMatchObject({ code: 'BAD_REQUEST', details: null });
      expect(res.json.error.data.error.message).toContain('name');
      expect(await snapshot(t)).toEqual(before);
    }
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId, key: 'a\u0000' }));
    const query = await callWithin(t, 'GET', `/trpc/variables.list?input=${input}`);
    expect(query.status, query.text).toBe(400);
    expect(query.json.error.data.error.code).toBe('INVALID_QUERY');
  });
});
