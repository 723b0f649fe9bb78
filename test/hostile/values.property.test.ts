import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { buildWorld, columnsPath, contentsPath, createTable, expectValidation, tablesPath, type Table, type World } from '../contents/fixture.js';
import { jsonValue, runs, seed, storableString, wrongTypeFor, type JsonType } from './arbitraries.js';
import { callWithin, snapshot, uniq } from './fixture.js';

/**
 * Contents values and column settings of the wrong JSON type (contents data: 422 naming
 * `data.<column>`; settings: 400 naming `settings.<key>`; docs/contents.md#tables-and-columns), and text that must
 * be stored and read back exactly: emoji, RTL, combining marks, SQL-looking and very long text.
 */

let t: TestApi;
let w: World;
let table: Table;

/** Column type → the JSON types its values take (null always clears, so it is never wrong). */
const VALUE_TYPES: Record<string, { settings?: Record<string, unknown>; accepted: JsonType[] }> = {
  text: { accepted: ['string'] },
  longtext: { accepted: ['string'] },
  number: { accepted: ['number'] },
  integer: { accepted: ['number'] },
  boolean: { accepted: ['boolean'] },
  date: { accepted: ['string'] },
  datetime: { accepted: ['string'] },
  email: { accepted: ['string'] },
  url: { accepted: ['string'] },
  select: { settings: { options: ['a', 'b'] }, accepted: ['string'] },
  tags: { settings: { options: ['a', 'b'], multiple: true }, accepted: ['array'] },
  slug: { accepted: ['string'] },
  file: { accepted: ['string'] },
};
const columnName = (type: string) => `c_${type}`;

/** Settings of each type with the JSON type they take (docs/contents.md#tables-and-columns). */
const SETTING_TYPES: [string, string, JsonType][] = [
  ['text', 'required', 'boolean'], ['text', 'unique', 'boolean'], ['text', 'minText', 'number'], ['text', 'maxText', 'number'],
  ['text', 'pattern', 'string'], ['text', 'localized', 'boolean'], ['number', 'min', 'number'], ['number', 'max', 'number'],
  ['integer', 'max', 'number'], ['select', 'options', 'array'], ['select', 'multiple', 'boolean'], ['slug', 'source', 'string'],
  ['reference', 'table', 'string'], ['file', 'multiple', 'boolean'], ['url', 'localized', 'boolean'], ['longtext', 'maxText', 'number'],
];

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  table = await createTable(
    w,
    [
      ...Object.entries(VALUE_TYPES).map(([type, spec]) => ({ name: columnName(type), type: type === 'tags' ? 'select' : type, settings: spec.settings })),
      // Takes any JSON value: nothing is of the wrong type for it.
      { name: 'c_json', type: 'json' },
    ],
  );
});
afterAll(() => t?.close());

describe('wrong JSON types', () => {
  it('in contents data are 422 naming data.<column>, on create and update; nothing is written', async () => {
    const row = await callWithin(t, 'POST', contentsPath(w, table.key), { body: { data: {} } });
    expect(row.status, row.text).toBe(201);
    const before = await snapshot(t);
    const cases = fc.constantFrom(...Object.keys(VALUE_TYPES)).chain((type) => fc.tuple(fc.constant(type), wrongTypeFor([...VALUE_TYPES[type].accepted, 'null'])));
    await fc.assert(
      fc.asyncProperty(cases, fc.boolean(), async ([type, value], update) => {
        const body = { data: { [columnName(type)]: value } };
        const res = update
          ? await callWithin(t, 'PUT', contentsPath(w, table.key, row.json.id), { body })
          : await callWithin(t, 'POST', contentsPath(w, table.key), { body });
        expectValidation(res, [`data.${columnName(type)}`]);
      }),
      { numRuns: runs(80), seed: seed(), endOnFailure: true },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('in column settings are 400 naming settings.<key>; nothing is written', async () => {
    const target = await createTable(w);
    const before = await snapshot(t);
    const cases = fc.constantFrom(...SETTING_TYPES).chain(([type, key, accepted]) => fc.tuple(fc.constant(type), fc.constant(key), wrongTypeFor([accepted, 'null'])));
    await fc.assert(
      fc.asyncProperty(cases, async ([type, key, value]) => {
        const settings = { ...(type === 'select' && key !== 'options' ? { options: ['a'] } : {}), [key]: value };
        const res = await callWithin(t, 'POST', columnsPath(w, target.key), { body: { name: uniq('c'), type, settings } });
        expect(expectError(res, 400, 'BAD_REQUEST').message, `${type} ${JSON.stringify(settings)}`).toContain(`settings.${key}`);
      }),
      { numRuns: runs(50), seed: seed(), endOnFailure: true },
    );
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('text and JSON that must round-trip exactly', () => {
  it('contents text, longtext and json values, a table description and a variable value come back as sent', async () => {
    await fc.assert(
      fc.asyncProperty(storableString(300, 50_000), jsonValue, async (text, json) => {
        const created = await callWithin(t, 'POST', contentsPath(w, table.key), { body: { data: { c_text: text, c_longtext: text.repeat(2), c_json: { value: json } } } });
        expect(created.status, created.text.slice(0, 300)).toBe(201);
        const read = await callWithin(t, 'GET', contentsPath(w, table.key, created.json.id));
        const data = JSON.parse(read.text).data;
        expect(data.c_text).toBe(text);
        expect(data.c_longtext).toBe(text.repeat(2));
        // jsonb keeps numbers as decimals and orders keys its own way; values are equal.
        expect(data.c_json).toEqual(JSON.parse(JSON.stringify({ value: json })));
      }),
      { numRuns: runs(20), seed: seed(), endOnFailure: true },
    );
    await fc.assert(
      fc.asyncProperty(storableString(300, 9_000), jsonValue, async (text, value) => {
        const created = await callWithin(t, 'POST', tablesPath(w), { body: { key: uniq('t'), name: 'Round trip', description: text } });
        expect(created.status, created.text.slice(0, 300)).toBe(201);
        expect((await callWithin(t, 'GET', tablesPath(w, created.json.id))).json.description).toBe(text);
        const variable = await callWithin(t, 'POST', `/v1/${w.projectId}/variables`, { body: { key: uniq('v'), value } });
        expect(variable.status, variable.text.slice(0, 300)).toBe(201);
        const stored = await callWithin(t, 'GET', `/v1/${w.projectId}/variables/${variable.json.id}`);
        expect(JSON.parse(stored.text).value).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: runs(15), seed: seed(), endOnFailure: true },
    );
  });
});
