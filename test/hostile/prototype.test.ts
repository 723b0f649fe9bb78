import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectValidation, tablesPath, type Table, type World } from '../contents/fixture.js';
import { callWithin, expectHandled, rawJson, snapshot, uniq } from './fixture.js';

/**
 * Prototype-pollution keys (`__proto__`, `constructor`, `prototype`) in bodies. Regressions:
 * `{"data":{"__proto__":…}}` was silently accepted as `{}` (zod drops that key), a column setting
 * `__proto__` was silently dropped, and `settings.constructor` was refused as "must be undefined"
 * (the settings table lookup found Object.prototype.constructor).
 * The API runs in this process, so Object.prototype itself is checked too.
 */

let t: TestApi;
let w: World;
let table: Table;
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'meta', type: 'json' },
  ]);
});
afterAll(() => t?.close());

function expectUnpolluted() {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  const probe: Record<string, unknown> = {};
  for (const key of ['polluted', 'required', 'title', 'isAdmin', 'x']) expect(probe[key], key).toBeUndefined();
}

describe('contents data', () => {
  it('data.__proto__, data.constructor and data.prototype are unknown columns (422), on create and update', async () => {
    const before = await snapshot(t);
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const raw = `{"data":{"title":"ok","${key}":{"title":"evil","polluted":true}}}`;
      expectValidation(await callWithin(t, 'POST', contentsPath(w, table.key), rawJson(raw)), [`data.${key}`]);
    }
    expect(await snapshot(t)).toEqual(before);
    const row = await createRow(w, table.key, { title: 'kept' });
    const put = await callWithin(t, 'PUT', contentsPath(w, table.key, row.id), rawJson('{"data":{"__proto__":{"title":"evil"}}}'));
    expectValidation(put, ['data.__proto__']);
    expect((await callWithin(t, 'GET', contentsPath(w, table.key, row.id))).json.data.title).toEqual({ en: 'kept' });
    expectUnpolluted();
  });

  it('those keys inside a json value or a localized value are data: stored verbatim, or an unknown locale', async () => {
    const meta = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"prototype":null}';
    const res = await callWithin(t, 'POST', contentsPath(w, table.key), rawJson(`{"data":{"meta":${meta}}}`));
    expect(res.status, res.text).toBe(201);
    const read = await callWithin(t, 'GET', contentsPath(w, table.key, res.json.id));
    expect(JSON.parse(read.text).data.meta).toEqual(JSON.parse(meta));
    // Own keys, not a prototype (jsonb orders keys its own way).
    expect(Object.keys(JSON.parse(read.text).data.meta).sort()).toEqual(['__proto__', 'constructor', 'prototype']);
    expectValidation(await callWithin(t, 'POST', contentsPath(w, table.key), rawJson('{"data":{"title":{"__proto__":"x"}}}')), ['data.title.__proto__']);
    expectUnpolluted();
  });
});

describe('column settings and other bodies', () => {
  it('settings.__proto__ / constructor / toString / hasOwnProperty are 400 "does not apply", on create and update', async () => {
    const before = await snapshot(t);
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype']) {
      const raw = `{"name":"${uniq('c')}","type":"text","settings":{"${key}":{"required":true}}}`;
      const res = await callWithin(t, 'POST', columnsPath(w, table.key), rawJson(raw));
      expect(expectError(res, 400, 'BAD_REQUEST').message).toBe(`Invalid request: settings.${key}: does not apply to text columns`);
    }
    expect(await snapshot(t)).toEqual(before);
    const put = await callWithin(t, 'PUT', columnsPath(w, table.key, 'title'), rawJson('{"settings":{"__proto__":{"required":true}}}'));
    expect(expectError(put, 400, 'BAD_REQUEST').message).toContain('settings.__proto__');
    expect(await snapshot(t)).toEqual(before);
    expectUnpolluted();
  });

  it('a top-level __proto__ in a body is an ignored unknown key; nothing is read through it', async () => {
    const key = uniq('t');
    const raw = `{"__proto__":{"defaultStatus":"DRAFT","description":"evil"},"key":"${key}","name":"n"}`;
    const res = await callWithin(t, 'POST', tablesPath(w), rawJson(raw));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ key, defaultStatus: 'PUBLISHED', description: '' });
    const variable = await callWithin(t, 'POST', `/v1/${w.projectId}/variables`, rawJson('{"key":"proto","value":{"__proto__":{"a":1}}}'));
    expect(variable.status, variable.text).toBe(201);
    expect(JSON.parse(variable.text).value).toEqual(JSON.parse('{"__proto__":{"a":1}}'));
    expectUnpolluted();
  });

  it('list parameters naming them are 400 INVALID_QUERY', async () => {
    const q = (params: Record<string, string>) => `${contentsPath(w, table.key)}?${new URLSearchParams(params)}`;
    const cases: Record<string, string>[] = [
      { filter: '[{"i":"__proto__","w":"eq","v":"x"}]' },
      { filter: '[{"__proto__":{"i":"title"},"w":"eq","v":"x"}]' },
      { filter: '[{"i":"constructor","w":"null","v":true}]' },
      { sort: '[{"i":"toString"}]' },
      { sort: '[{"i":"title","o":"constructor"}]' },
      { fields: '__proto__,constructor' },
      { op: '__proto__' },
    ];
    for (const params of cases) {
      const res = await callWithin(t, 'GET', q(params));
      expectHandled(res, JSON.stringify(params));
      expectError(res, 400, 'INVALID_QUERY');
    }
    expectUnpolluted();
  });
});
