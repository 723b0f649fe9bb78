import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, postRow, putRow, type Table, type World } from './fixture.js';

/**
 * Import and export input that once slipped through (docs/import-export.md): the same id on two
 * lines, strings PostgreSQL cannot store, a CSV header naming a column twice, repeated query
 * parameters, and spreadsheet formulas in CSV cells. Each is a clear 4xx and writes nothing.
 */
let t: TestApi;
let w: World;
let db: pg.Client;
let items: Table;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
  items = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'code', type: 'text' },
    { name: 'meta', type: 'json' },
    { name: 'price', type: 'number' },
  ]);
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const importInto = (table: string, body: string, type = 'application/x-ndjson', query = '') =>
  t.call('POST', `${contentsPath(w, table)}/import${query}`, { token: w.writeKey, raw: body, headers: { 'content-type': type } });
const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const rowCount = async (table: string) => Number((await db.query('select count(*) as n from contents where table_id = $1', [table])).rows[0].n);
const exportRaw = (table: string, query: string) => fetch(`${t.url}${contentsPath(w, table)}/export${query}`, { headers: { authorization: `Bearer ${w.writeKey}` } });

describe('the same id on two lines', () => {
  const id = '0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a';

  it('is 422 naming the second line, in NDJSON and CSV, with and without mode=upsert, and writes nothing', async () => {
    const before = await rowCount(items.id);
    const lines = ndjson([{ id, data: { code: 'a' } }, { data: { code: 'b' } }, { id: id.toUpperCase(), data: { code: 'c' } }]);
    for (const query of ['', '?mode=upsert']) {
      const res = expectError(await importInto(items.id, lines, 'application/x-ndjson', query), 422, 'VALIDATION_ERROR');
      expect(res.details).toEqual([{ field: 'line 3: id', message: 'the same id as line 1' }]);
      const csv = `id,code\n${id},a\n,b\n${id},c\n`;
      const fromCsv = expectError(await importInto(items.id, csv, 'text/csv', query), 422, 'VALIDATION_ERROR');
      expect(fromCsv.details).toEqual([{ field: 'line 4: id', message: 'the same id as line 2' }]);
    }
    expect(await rowCount(items.id)).toBe(before);
  });
});

describe('strings PostgreSQL cannot store', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a NUL in a text', { code: 'a\u0000b' }, 'data.code'],
    ['an unpaired surrogate in a text', { code: 'a\ud800b' }, 'data.code'],
    ['a NUL in a localized value', { title: { en: 'ok', fr: 'x\u0000' } }, 'data.title.fr'],
    ['a NUL as a plain localized value', { title: 'x\u0000' }, 'data.title'],
    ['an unpaired surrogate deep in a json value', { meta: { a: [1, { b: '\udc00' }] } }, 'data.meta.a.1.b'],
    ['a NUL in a json key', { meta: { 'k\u0000': 1 } }, 'data.meta.k?'],
  ];

  it.each(cases)('%s: an import is 422 naming line and field, and writes nothing', async (_label, data, field) => {
    const before = await rowCount(items.id);
    for (const query of ['', '?mode=upsert']) {
      const res = expectError(await importInto(items.id, ndjson([{ data: { code: 'fine' } }, { data }]), 'application/x-ndjson', query), 422, 'VALIDATION_ERROR');
      expect(res.details).toEqual([{ field: `line 2: ${field}`, message: expect.stringMatching(/NUL|surrogate/) }]);
    }
    expect(await rowCount(items.id)).toBe(before);
  });

  it('in CSV cells too (a text cell, a locale cell, a json cell)', async () => {
    const before = await rowCount(items.id);
    const csv = 'title,title.fr,code,meta\nA,B,c,{}\nA,"x\u0000",c,{}\nA,B,"\u0000",{}\nA,B,c,"{""k"":""\\u0000""}"\n';
    const res = expectError(await importInto(items.id, csv, 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(res.details!.map((d) => d.field)).toEqual(['line 3: data.title.fr', 'line 4: data.code', 'line 5: data.meta.k']);
    expect(await rowCount(items.id)).toBe(before);
  });

  it('a number beyond the double range, or nesting too deep, in a json value (once stored as null or a 500)', async () => {
    const before = await rowCount(items.id);
    const deep = `${'['.repeat(200)}1${']'.repeat(200)}`;
    const body = `{"data":{"meta":{"n":1e400}}}\n{"data":{"price":-1e400}}\n{"data":{"meta":${deep}}}\n`;
    const res = expectError(await importInto(items.id, body), 422, 'VALIDATION_ERROR');
    expect(res.details!.map((d) => d.field.replace(/(\.0)+$/, '.0…'))).toEqual(['line 1: data.meta.n', 'line 2: data.price', 'line 3: data.meta.0…']);
    expect(await rowCount(items.id)).toBe(before);
  });

  it('an upsert matched by such a slug is refused as well (the slug is never looked up)', async () => {
    const pages = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'slug', type: 'slug', settings: { source: 'title' } }]);
    const res = expectError(await importInto(pages.id, ndjson([{ data: { slug: 'a\u0000b' } }]), 'application/x-ndjson', '?mode=upsert'), 422, 'VALIDATION_ERROR');
    expect(res.details!.map((d) => d.field)).toEqual(['line 1: data.slug']);
  });

  it('single creates and updates refuse them with a 4xx naming the field, never a 500', async () => {
    const row = await createRow(w, items.id, { code: 'x' });
    for (const data of [{ code: 'a\u0000' }, { title: { fr: '\ud800' } }, { meta: { k: '\u0000' } }]) {
      for (const res of [await postRow(w, items.id, { data }), await putRow(w, items.id, row.id, { data })]) {
        expect(res.status, res.text).toBe(400);
        expect(res.json.error.message).toMatch(/data\.(code|title\.fr|meta\.k): contains/);
      }
    }
  });
});

describe('CSV header', () => {
  it('naming a column twice is 422 naming the header, also for a locale', async () => {
    const before = await rowCount(items.id);
    const twice = expectError(await importInto(items.id, 'title,code,code\nA,b,c\n', 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(twice.details).toEqual([{ field: 'line 1: column 3 "code"', message: 'names the same column as column 2' }]);
    const locale = expectError(await importInto(items.id, 'title.fr,code,title.fr\nA,b,c\n', 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(locale.details).toEqual([{ field: 'line 1: column 3 "title.fr"', message: 'names the same column as column 1' }]);
    // The default locale's plain header and its own locale header are the same cell.
    const plain = expectError(await importInto(items.id, 'title,title.en\nA,B\n', 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(plain.details).toEqual([{ field: 'line 1: column 2 "title.en"', message: 'names the same column as column 1' }]);
    const system = expectError(await importInto(items.id, 'id,code,id\n,b,\n', 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(system.details!.map((d) => d.field)).toEqual(['line 1: column 3 "id"']);
    expect(await rowCount(items.id)).toBe(before);
  });
});

describe('repeated query parameters', () => {
  it('are 400 on import (mode) and on export (format, fields, sort...), as lists refuse them', async () => {
    const before = await rowCount(items.id);
    const line = ndjson([{ data: { code: 'r' } }]);
    expectError(await importInto(items.id, line, 'application/x-ndjson', '?mode=upsert&mode=create'), 400, 'INVALID_QUERY');
    expectError(await importInto(items.id, line, 'application/x-ndjson', '?mode[]=upsert'), 400, 'INVALID_QUERY');
    expect(await rowCount(items.id)).toBe(before);
    for (const query of ['?format=csv&format=ndjson', '?fields=code&fields=price', '?sort=[]&sort=[]', '?locale=fr&locale=en', '?op=and&op=or', '?search=a&search=b', '?filter=[]&filter=[]', '?format[]=csv', '?fields=']) {
      const res = await exportRaw(items.id, query);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code, query).toBe('INVALID_QUERY');
    }
  });
});

describe('CSV export and spreadsheet formulas', () => {
  let sheet: Table;
  beforeAll(async () => {
    sheet = await createTable(w, [
      { name: 'title', type: 'text', settings: { localized: true } },
      { name: 'code', type: 'text' },
      { name: 'n', type: 'number' },
      { name: 'tags', type: 'json' },
    ]);
    const values = ["=cmd|' /C calc'!A0", '+SUM(1,2)', '-2+3', '@SUM(A1)', '\tTAB', '\rCR', 'plain', 'a=b'];
    const lines = values.map((code, i) => ({ data: { code, title: { en: code, fr: `fr ${i}` }, n: -i, tags: ['=x'] }, status: 'PUBLISHED' }));
    expectStatus(await importInto(sheet.id, ndjson(lines)), 200);
  });

  const csvOf = async (query: string) => {
    const res = await exportRaw(sheet.id, `?format=csv&fields=title,code,n,tags&sort=${encodeURIComponent('[{"i":"n","o":"desc"}]')}${query}`);
    expect(res.status).toBe(200);
    return res.text();
  };

  it("writes a cell that begins with =, +, -, @, a tab or a carriage return with a leading ' (read keys too); numbers stay numbers", async () => {
    const text = await csvOf('');
    const records = text.split('\r\n').slice(1, -1).map((r) => r.replace(/^[0-9a-f-]{36},/, ''));
    expect(records).toEqual([
      `'=cmd|' /C calc'!A0,fr 0,'=cmd|' /C calc'!A0,0,"[""=x""]"`,
      `"'+SUM(1,2)",fr 1,"'+SUM(1,2)",-1,"[""=x""]"`,
      `'-2+3,fr 2,'-2+3,-2,"[""=x""]"`,
      `'@SUM(A1),fr 3,'@SUM(A1),-3,"[""=x""]"`,
      `'\tTAB,fr 4,'\tTAB,-4,"[""=x""]"`,
      `"'\rCR",fr 5,"'\rCR",-5,"[""=x""]"`,
      'plain,fr 6,plain,-6,"[""=x""]"',
      'a=b,fr 7,a=b,-7,"[""=x""]"',
    ]);
    const read = await fetch(`${t.url}${contentsPath(w, sheet.id)}/export?format=csv&fields=code&sort=${encodeURIComponent('[{"i":"n","o":"desc"}]')}`, { headers: { authorization: `Bearer ${w.readKey}` } });
    const codes = (await read.text()).split('\r\n').slice(1, -1).map((r) => r.replace(/^[0-9a-f-]{36},/, ''));
    expect(codes).toEqual([`'=cmd|' /C calc'!A0`, `"'+SUM(1,2)"`, `'-2+3`, `'@SUM(A1)`, `'\tTAB`, `"'\rCR"`, 'plain', 'a=b']);
  });

  it('escapeFormulas=false writes the cells as they are, and such an export imports back to the same values', async () => {
    const text = await csvOf('&escapeFormulas=false');
    expect(text).toContain(`,=cmd|' /C calc'!A0,`);
    expect(text).not.toContain(`'=`);
    const copy = await createTable(w, [
      { name: 'title', type: 'text', settings: { localized: true } },
      { name: 'code', type: 'text' },
      { name: 'n', type: 'number' },
      { name: 'tags', type: 'json' },
    ]);
    const withoutIds = text.split('\r\n').map((line, i) => (i === 0 ? line.replace(/^id,/, '') : line.replace(/^[0-9a-f-]{36},/, ''))).join('\r\n');
    expectStatus(await importInto(copy.id, withoutIds, 'text/csv'), 200);
    const codes = (await db.query<{ code: string }>(`select data->>'code' as code from contents where table_id = $1 order by (data->>'n')::int desc`, [copy.id])).rows.map((r) => r.code);
    expect(codes).toEqual(["=cmd|' /C calc'!A0", '+SUM(1,2)', '-2+3', '@SUM(A1)', '\tTAB', '\rCR', 'plain', 'a=b']);
  });

  it('escapeFormulas takes true or false only', async () => {
    expect((await exportRaw(sheet.id, '?format=csv&escapeFormulas=true')).status).toBe(200);
    for (const value of ['yes', '0', 'TRUE', '']) {
      const res = await exportRaw(sheet.id, `?format=csv&escapeFormulas=${value}`);
      expect(res.status, value).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_QUERY');
    }
    expect((await exportRaw(sheet.id, '?format=csv&escapeFormulas=true&escapeFormulas=false')).status).toBe(400);
  });
});
