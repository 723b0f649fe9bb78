import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { buildWorld, contentsPath, createRow, createTable, expectError, expectStatus, list, type Table, type World } from './fixture.js';

/**
 * docs/import-export.md through the real API: NDJSON and CSV, atomicity, line-numbered
 * errors, uniqueness, references within the file, upsert, slugs, one event; exports equal to the
 * list for each kind of credential.
 */
let t: TestApi;
let w: World;
let db: pg.Client;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  db = new pg.Client({ connectionString: t.db.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const importInto = (table: string, body: string, type = 'application/x-ndjson', query = '', token = w.writeKey) =>
  t.call('POST', `${contentsPath(w, table)}/import${query}`, { token, raw: body, headers: { 'content-type': type } });
const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const rowCount = async (table: string) => Number((await db.query('select count(*) as n from contents where table_id = $1', [table])).rows[0].n);
const exportOf = async (table: string, query: string, token = w.writeKey) => {
  const res = await fetch(`${t.url}${contentsPath(w, table)}/export${query}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, await res.clone().text()).toBe(200);
  return { type: res.headers.get('content-type'), text: await res.text() };
};

describe('import', () => {
  let products: Table;
  beforeAll(async () => {
    products = await createTable(w, [
      { name: 'name', type: 'text', settings: { required: true, localized: true } },
      { name: 'slug', type: 'slug', settings: { source: 'name' } },
      { name: 'sku', type: 'text', settings: { unique: true } },
      { name: 'price', type: 'number', settings: { min: 0 } },
      { name: 'tags', type: 'select', settings: { options: ['a', 'b', 'c'], multiple: true } },
      { name: 'featured', type: 'boolean' },
    ]);
  });

  it('imports NDJSON lines atomically, with slugs derived as single creates do, and fires one contents.imported', async () => {
    await createRow(w, products.id, { name: 'Mug', sku: 'EXIST-1' });
    const lines = Array.from({ length: 1500 }, (_, i) => ({ data: { name: { en: i < 2 ? 'Mug' : `Cup ${i}`, fr: `Tasse ${i}` }, sku: `SKU-${i}`, price: i }, status: i % 2 ? 'PUBLISHED' : 'DRAFT' }));
    const res = expectStatus(await importInto(products.id, ndjson(lines)), 200);
    expect(res).toEqual({ imported: 1500 });
    expect(await rowCount(products.id)).toBe(1501);
    const mugs = (await list(w, products.id, w.writeKey, { filter: [{ i: 'name', w: 'eq', v: 'Mug' }], sort: [{ i: 'slug', o: 'asc' }], fields: 'slug' })).list;
    expect(mugs.map((m) => (m as { slug?: string }).slug)).toEqual(['mug', 'mug-2', 'mug-3']);
    const totals = (await list(w, products.id, w.readKey)).pagination.total;
    expect(totals).toBe(750 + 1);
    const events = await db.query(`select payload from event_outbox where payload->>'type' like 'contents.%' and payload->>'tableId' = $1 order by seq`, [products.id]);
    expect(events.rows.map((r: { payload: { type: string; data: object } }) => [r.payload.type, r.payload.data])).toEqual([
      ['contents.created', expect.anything()],
      ['contents.published', expect.anything()],
      ['contents.imported', { tableId: products.id, count: 1500 }],
    ]);
    const revisions = await db.query(`select count(*) as n from contents_revision r join contents c on c.id = r.row_id where c.table_id = $1 and r.action = 'created'`, [products.id]);
    expect(Number(revisions.rows[0].n)).toBe(1501);
  });

  it('writes nothing when one line is wrong, and names the first 100 offending lines', { timeout: 180_000 }, async () => {
    const before = await rowCount(products.id);
    const lines = Array.from({ length: 100_000 }, (_, i) => ({ data: { name: `Bowl ${i}`, price: i === 99_998 ? -5 : 1 } }));
    const one = expectError(await importInto(products.id, ndjson(lines)), 422, 'VALIDATION_ERROR');
    expect(one.details).toEqual([{ field: 'line 99999: data.price', message: expect.any(String) }]);
    expect(await rowCount(products.id)).toBe(before);

    const many = Array.from({ length: 400 }, (_, i) => (i % 2 ? { data: { name: `Plate ${i}`, price: 'free' } } : { data: { name: `Plate ${i}` } }));
    const hundred = expectError(await importInto(products.id, ndjson(many)), 422, 'VALIDATION_ERROR');
    const offending = new Set(hundred.details!.map((d) => d.field.split(':')[0]));
    expect(offending.size).toBe(100);
    expect([...offending][0]).toBe('line 2');
    expect(await rowCount(products.id)).toBe(before);
  });

  it('refuses unique values taken by stored rows or earlier lines, naming line and field', async () => {
    const lines = [{ data: { name: 'A', sku: 'EXIST-1' } }, { data: { name: 'B', sku: 'NEW-1' } }, { data: { name: 'C', sku: 'NEW-1' } }, { data: { name: 'D' } }];
    const res = expectError(await importInto(products.id, ndjson(lines)), 422, 'VALIDATION_ERROR');
    expect(res.details!.map((d) => d.field)).toEqual(['line 1: data.sku', 'line 3: data.sku']);
  });

  it('leaves the GIN indexes of the table with nothing pending, and finds imported rows by contains and search', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => ({ data: { name: `Saucer ${i} zanzibar${i % 7}`, sku: `GIN-${i}` } }));
    expectStatus(await importInto(products.id, ndjson(lines)), 200);
    await db.query('create extension if not exists pgstattuple');
    const gin = await db.query<{ name: string; pending: number }>(
      `select c.relname as name, (pgstatginindex(c.oid)).pending_tuples::int as pending
         from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
        where a.amname = 'gin' and pg_get_expr(i.indpred, i.indrelid) like '%' || $1 || '%'`,
      [products.id],
    );
    expect(gin.rows.length).toBeGreaterThanOrEqual(3); // trigram of name (per locale) and sku, search
    expect(gin.rows.filter((r) => r.pending > 0)).toEqual([]);
    const contains = await list(w, products.id, w.writeKey, { filter: [{ i: 'sku', w: 'contains', v: 'GIN-299' }] });
    expect(contains.pagination.total).toBe(11); // GIN-299, GIN-2990 ... GIN-2999
    const found = await list(w, products.id, w.writeKey, { search: 'zanzibar3' });
    expect(found.pagination.total).toBe(lines.filter((_, i) => i % 7 === 3).length);
  });

  it('reads malformed lines as errors of their line', async () => {
    const body = '{"data":{"name":"ok"}}\nnot json\n{"name":"no data"}\n{"data":{"name":"x"},"status":"LIVE"}\n{"data":{"name":"y"},"extra":1}\n';
    const res = expectError(await importInto(products.id, body), 422, 'VALIDATION_ERROR');
    expect(res.details!.map((d) => d.field)).toEqual(['line 2', 'line 3: data', 'line 4: status', 'line 5: extra']);
  });

  it('reads CSV: quoted fields with commas, quotes and line breaks, locales as name.fr, arrays as JSON, numbers and booleans', async () => {
    const csv = [
      'name,name.fr,sku,price,tags,featured',
      '"Cup, large","Tasse ""XL""",CSV-1,12.5,"[""a"",""c""]",true',
      '"Two\r\nlines",,CSV-2,,,false',
      '',
    ].join('\r\n');
    expectStatus(await importInto(products.id, csv, 'text/csv'), 200);
    const rows = (await list(w, products.id, w.writeKey, { filter: [{ i: 'sku', w: 'in', v: ['CSV-1', 'CSV-2'] }], sort: [{ i: 'sku', o: 'asc' }] })).list;
    expect(rows.map((r) => r.data)).toEqual([
      { name: { en: 'Cup, large', fr: 'Tasse "XL"' }, slug: 'cup-large', sku: 'CSV-1', price: 12.5, tags: ['a', 'c'], featured: true },
      { name: { en: 'Two\r\nlines' }, slug: 'two-lines', sku: 'CSV-2', featured: false },
    ]);
    const unknown = expectError(await importInto(products.id, 'name,colour\nx,red\n', 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(unknown.details!.map((d) => d.field)).toEqual(['line 1: column 2 "colour"']);
    const ragged = expectError(await importInto(products.id, 'name,sku\nx\n"unclosed,y\n', 'text/csv'), 422, 'VALIDATION_ERROR');
    expect(ragged.details!.map((d) => d.field)).toEqual(['line 2', 'line 3']);
  });

  it('answers 415, 400, 403 and 413 as usual', async () => {
    expectError(await importInto(products.id, '{}', 'application/json'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await importInto(products.id, ndjson([{ data: { name: 'x' } }]), 'application/x-ndjson', '?mode=merge'), 400, 'BAD_REQUEST');
    expectError(await importInto(products.id, ndjson([{ data: { name: 'x' } }]), 'application/x-ndjson', '', w.readKey), 403, 'FORBIDDEN');
    // A server with a small IMPORT_MAX_BYTES: the import stops there and writes nothing.
    const small = await startTestApi({ IMPORT_MAX_BYTES: '100000' });
    try {
      const sw = await buildWorld(small);
      const table = await createTable(sw, [{ name: 'name', type: 'text' }]);
      const big = ndjson(Array.from({ length: 5_000 }, (_, i) => ({ data: { name: `Big ${i}` } })));
      expect(big.length).toBeGreaterThan(100_000);
      const res = await small.call('POST', `${contentsPath(sw, table.id)}/import`, { token: sw.writeKey, raw: big, headers: { 'content-type': 'application/x-ndjson' } });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(expectStatus(await small.call('GET', contentsPath(sw, table.id), { token: sw.writeKey }), 200).pagination.total).toBe(0);
    } finally {
      await small.close();
    }
  });
});

describe('references and upsert', () => {
  it('resolves references to rows of the same file (before or after) and refuses missing ones', async () => {
    const people = await createTable(w, [{ name: 'name', type: 'text' }]);
    const self = await t.call('POST', `/v1/${w.projectId}/tables/${people.id}/columns`, { body: { name: 'manager', type: 'reference', settings: { table: people.id } } });
    expectStatus(self, 201);
    const boss = '0190b0a0-0000-7000-8000-000000000b05';
    const staff = '0190b0a0-0000-7000-8000-000000000005';
    const ok = [{ id: staff, data: { name: 'Staff', manager: boss } }, { id: boss, data: { name: 'Boss' } }];
    expectStatus(await importInto(people.id, ndjson(ok)), 200);
    expect(expectStatus(await t.call('GET', contentsPath(w, people.id, staff), { token: w.writeKey }), 200).data.manager).toBe(boss);
    const missing = '0190b0a0-0000-7000-8000-00000000dead';
    const bad = expectError(await importInto(people.id, ndjson([{ data: { name: 'X', manager: missing } }])), 422, 'VALIDATION_ERROR');
    expect(bad.details).toEqual([{ field: 'line 1: data.manager', message: `unknown contents id(s): ${missing}` }]);
    const taken = expectError(await importInto(people.id, ndjson([{ id: boss, data: { name: 'Again' } }])), 422, 'VALIDATION_ERROR');
    expect(taken.details!.map((d) => d.field)).toEqual(['line 1: id']);

    // Missing references are known only once the whole file is written, after 100 other lines
    // were refused: the 422 still names the first 100 offending lines of the file.
    const late = Array.from({ length: 1200 }, (_, i) =>
      i < 10 ? { data: { name: `Lost ${i}`, manager: missing } } : i >= 1000 && i < 1100 ? { data: { name: 42 } } : { data: { name: `Fine ${i}` } },
    );
    const refused = expectError(await importInto(people.id, ndjson(late)), 422, 'VALIDATION_ERROR');
    const offending = [...new Set(refused.details!.map((d) => Number(/^line (\d+)/.exec(d.field)![1])))];
    expect(offending).toEqual([...Array.from({ length: 10 }, (_, i) => i + 1), ...Array.from({ length: 90 }, (_, i) => i + 1001)]);
  });

  it('checks file columns as single writes do: a missing file refuses its line, an uploaded one is kept', async () => {
    const media = await createTable(w, [
      { name: 'title', type: 'text' },
      { name: 'cover', type: 'file' },
      { name: 'gallery', type: 'file', settings: { multiple: true } },
    ]);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('cover bytes')]), 'cover.txt');
    const upload = await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${w.writeKey}` }, body: form });
    expect(upload.status).toBe(201);
    const file = ((await upload.json()) as { id: string }).id;
    const missing = '0190b0a0-0000-7000-8000-00000000f11e';
    const lines = [{ data: { title: 'A', cover: file } }, { data: { title: 'B', gallery: [file, missing] } }, { data: { title: 'C', cover: missing } }];
    const refused = expectError(await importInto(media.id, ndjson(lines)), 422, 'VALIDATION_ERROR');
    expect(refused.details).toEqual([
      { field: 'line 2: data.gallery', message: `unknown file id(s): ${missing}` },
      { field: 'line 3: data.cover', message: `unknown file id(s): ${missing}` },
    ]);
    expect(await rowCount(media.id)).toBe(0);
    expect(expectStatus(await importInto(media.id, ndjson([lines[0], { data: { title: 'B', gallery: [file] } }])), 200).imported).toBe(2);
    const stored = (await db.query(`select data from contents where table_id = $1 order by data->>'title'`, [media.id])).rows.map((r) => r.data);
    expect(stored).toEqual([{ title: 'A', cover: file }, { title: 'B', gallery: [file] }]);
  });

  it('mode=upsert updates rows matched by id or by slug (merged, as PUT) and creates the others', async () => {
    const pages = await createTable(w, [
      { name: 'title', type: 'text' },
      { name: 'slug', type: 'slug', settings: { source: 'title' } },
      { name: 'body', type: 'text' },
    ]);
    const about = await createRow(w, pages.id, { title: 'About', body: 'old' }, { status: 'DRAFT' });
    const contact = await createRow(w, pages.id, { title: 'Contact', body: 'old' });
    const lines = [
      { id: about.id, data: { body: 'new about' }, status: 'PUBLISHED' },
      { data: { slug: 'contact', body: 'new contact' } },
      { data: { title: 'Jobs' } },
    ];
    expect(expectStatus(await importInto(pages.id, ndjson(lines), 'application/x-ndjson', '?mode=upsert'), 200)).toEqual({ imported: 3 });
    const rows = (await list(w, pages.id, w.writeKey, { sort: [{ i: 'slug', o: 'asc' }] })).list;
    expect(rows.map((r) => [r.data?.slug, r.data?.body, r.status])).toEqual([
      ['about', 'new about', 'PUBLISHED'],
      ['contact', 'new contact', 'PUBLISHED'],
      ['jobs', undefined, 'PUBLISHED'],
    ]);
    expect(rows.find((r) => r.id === contact.id)).toBeDefined();
    const revisions = expectStatus(await t.call('GET', `${contentsPath(w, pages.id, about.id)}/revisions`, { token: w.writeKey }), 200).list;
    expect(revisions.map((r: { action: string }) => r.action)).toEqual(['published', 'created']);
    const twice = expectError(await importInto(pages.id, ndjson([{ id: about.id, data: {} }, { data: { slug: 'about' } }]), 'application/x-ndjson', '?mode=upsert'), 422, 'VALIDATION_ERROR');
    expect(twice.details).toEqual([{ field: 'line 2', message: 'names the same row as line 1' }]);
  });
});

describe('export', () => {
  let items: Table;
  beforeAll(async () => {
    items = await createTable(w, [
      { name: 'title', type: 'text', settings: { localized: true } },
      { name: 'price', type: 'number' },
      { name: 'note', type: 'longtext' },
      { name: 'meta', type: 'json' },
    ]);
    const lines = Array.from({ length: 2500 }, (_, i) => ({
      data: {
        title: { en: `Item ${i}`, fr: `Objet ${i}` },
        price: i % 97,
        note: i % 10 === 0 ? 'comma, "quote"\nline' : null,
        ...(i % 7 === 0 ? { meta: { b: [1.5, { z: null, a: 'é "\\ \u0001' }], a: i } } : {}),
      },
      status: i % 3 === 0 ? 'DRAFT' : 'PUBLISHED',
    }));
    expectStatus(await importInto(items.id, ndjson(lines)), 200);
    // Timestamps with microseconds (as now() writes them): the export truncates them to milliseconds as the list does.
    await db.query(`update contents set updated_at = '2026-01-02 03:04:05.987654+00' where table_id = $1 and data->>'price' = '5'`, [items.id]);
  });

  /** Every row of the list with `query`, page after page by cursor. */
  async function wholeList(query: Record<string, unknown>, token: string) {
    const rows: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(w, items.id, token, { ...query, size: 1000, withCount: 'false', ...(cursor ? { cursor } : {}) });
      rows.push(...page.list);
      cursor = (page.pagination as { nextCursor?: string | null }).nextCursor ?? undefined;
    } while (cursor);
    return rows;
  }

  it('streams NDJSON equal to the list (same rows, same order) for each kind of credential', async () => {
    const queries = [
      {},
      { sort: [{ i: 'price', o: 'desc' }], filter: [{ i: 'price', w: 'lt', v: 50 }], fields: 'title,price,status' },
      { locale: 'fr', sort: [{ i: 'title', o: 'asc', l: 'fr' }] },
      { fields: 'updatedAt,meta,hasDraft,note,slug', sort: [{ i: 'updatedAt', o: 'asc' }] },
      // Values with quotes, a comma and a line break: the export's COPY carries them as literals.
      { search: 'objet', filter: [{ i: 'note', w: 'contains', v: ', "quote"\nl' }, { i: 'title', w: 'in', v: ["it's", 'a\\b', 'Item 10'] }], op: 'or' },
    ];
    for (const token of [w.writeKey, w.readKey, t.adminToken]) {
      for (const query of queries) {
        const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
        const exported = await exportOf(items.id, `?${qs}`, token);
        expect(exported.type).toBe('application/x-ndjson; charset=utf-8');
        const rows = exported.text.trimEnd().split('\n').map((line) => JSON.parse(line));
        // Same rows, same order, and the same keys in the same order (which toEqual does not see).
        expect(rows.map((row) => JSON.stringify(row))).toEqual((await wholeList(query, token)).map((row) => JSON.stringify(row)));
      }
    }
  });

  it('streams CSV with a header, locales as columns and quoted fields', async () => {
    const exported = await exportOf(items.id, `?format=csv&fields=title,price,note&sort=${encodeURIComponent('[{"i":"price","o":"asc"}]')}&filter=${encodeURIComponent('[{"i":"price","w":"eq","v":0}]')}`);
    expect(exported.type).toBe('text/csv; charset=utf-8');
    const [header, ...records] = exported.text.split('\r\n');
    expect(header).toBe('id,title.en,title.fr,price,note');
    expect(records.filter((r) => r !== '')).toHaveLength(26);
    expect(records.find((r) => r.includes(',Item 0,'))).toMatch(/^[0-9a-f-]{36},Item 0,Objet 0,0,"comma, ""quote""\nline"$/);
    expect(records.find((r) => r.includes(',Item 97,'))).toMatch(/^[0-9a-f-]{36},Item 97,Objet 97,0,$/);
  });

  it('closes its connection when the client leaves half-way, and the next export runs', async () => {
    const big = await createTable(w, [{ name: 'body', type: 'longtext' }]);
    const filler = 'x'.repeat(2000);
    expectStatus(await importInto(big.id, ndjson(Array.from({ length: 10_000 }, (_, i) => ({ data: { body: `${i} ${filler}` } })))), 200);
    const copies = async () => Number((await db.query(`select count(*) as n from pg_stat_activity where query like 'copy (%' and state = 'active'`)).rows[0].n);
    const left = new AbortController();
    const res = await fetch(`${t.url}${contentsPath(w, big.id)}/export`, { headers: { authorization: `Bearer ${w.writeKey}` }, signal: left.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    // About 20 MB remain: the COPY waits on the socket, then ends when the client leaves.
    expect(await copies()).toBe(1);
    left.abort();
    await until(async () => (await copies()) === 0, 10_000, 'the COPY to end after the client left');
    const again = await exportOf(big.id, '?fields=id');
    expect(again.text.trimEnd().split('\n')).toHaveLength(10_000);
  });

  it('answers 400 for a bad query or format before streaming anything', async () => {
    const res = await fetch(`${t.url}${contentsPath(w, items.id)}/export?sort=nope`, { headers: { authorization: `Bearer ${w.writeKey}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_QUERY');
    expect((await fetch(`${t.url}/v1/${w.projectId}/tables/%00/contents/export`, { headers: { authorization: `Bearer ${w.writeKey}` } })).status).toBe(404);
    const format = await fetch(`${t.url}${contentsPath(w, items.id)}/export?format=xml`, { headers: { authorization: `Bearer ${w.writeKey}` } });
    expect(format.status).toBe(400);
  });

  it('round-trips: a CSV export imports into a table with the same columns', async () => {
    const copy = await createTable(w, [
      { name: 'title', type: 'text', settings: { localized: true } },
      { name: 'price', type: 'number' },
      { name: 'note', type: 'longtext' },
      { name: 'meta', type: 'json' },
    ]);
    const exported = await exportOf(items.id, '?format=csv&fields=status,title,price,note,meta');
    const withoutIds = exported.text
      .split('\r\n')
      .map((line, i) => (i === 0 ? line.replace(/^id,/, '') : line.replace(/^[0-9a-f-]{36},/, '')))
      .join('\r\n');
    expect(expectStatus(await importInto(copy.id, withoutIds, 'text/csv'), 200)).toEqual({ imported: 2500 });
    const strip = (rows: unknown[]) => (rows as { data: unknown; status: string }[]).map((r) => [r.status, r.data]);
    const sort = [{ i: 'price', o: 'asc' }, { i: 'title', o: 'asc' }];
    expect(strip((await list(w, copy.id, w.writeKey, { size: 1000, sort })).list)).toEqual(strip((await list(w, items.id, w.writeKey, { size: 1000, sort })).list));
  });
});

describe('derived slugs', () => {
  it('follow the rule of single creates: past the highest suffix taken, also against slugs derived from other bases', async () => {
    const notes = await createTable(w, [
      { name: 'title', type: 'text' },
      { name: 'slug', type: 'slug', settings: { source: 'title' } },
    ]);
    await createRow(w, notes.id, { title: 'Note' });
    await createRow(w, notes.id, { title: 'Note', slug: 'note-5' });
    // The first "Note" takes note-6 (past note-5, as a create would); "Note 7" takes note-7, so the next "Note" goes to note-8.
    expectStatus(await importInto(notes.id, ndjson([{ data: { title: 'Note' } }, { data: { title: 'Note 7' } }, { data: { title: 'Note' } }])), 200);
    const created = expectStatus(await t.call('POST', contentsPath(w, notes.id), { token: w.writeKey, body: { data: { title: 'Note' } } }), 201);
    const slugs = (await list(w, notes.id, w.writeKey, { fields: 'slug', size: 10 })).list.map((r) => (r as { slug?: string }).slug).sort();
    expect(slugs).toEqual(['note', 'note-5', 'note-6', 'note-7', 'note-8', 'note-9'].sort());
    expect(created.slug).toBe('note-9');
  });
});
