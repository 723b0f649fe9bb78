import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  buildWorld,
  contentsPath,
  createRow,
  createTable,
  expectError,
  expectStatus,
  getRow,
  list,
  postRow,
  putRow,
  tablesPath,
  type Table,
  type World,
  roleKey,
} from '../contents/fixture.js';

/** Roles enforced on every surface (docs/roles.md#one-enforcement-path): hand-written cases for each answer. */

let t: TestApi;
let w: World;
let categories: Table;
let products: Table;
let orders: Table;

const q = (params: Record<string, unknown>) => `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`;

/** A role with these rules and an API key holding it: the key's secret and id. */
const keyWith = (rules: unknown[]) => roleKey(w, rules);

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  categories = await createTable(w, [
    { name: 'name', type: 'text' },
    { name: 'internal', type: 'boolean' },
  ]);
  products = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'price', type: 'number' },
    { name: 'cost', type: 'number' },
    { name: 'notes', type: 'longtext' },
    { name: 'owner', type: 'text' },
    { name: 'category', type: 'reference', settings: { table: categories.id } },
  ]);
  orders = await createTable(w, [{ name: 'total', type: 'number' }]);
});
afterAll(async () => t?.close());

describe('a storefront key: two tables, no internal columns, public categories only', () => {
  let store: string;
  let shown: string;
  let hidden: string;
  let rows: Record<string, string>;

  beforeAll(async () => {
    shown = (await createRow(w, categories.id, { name: 'Shoes', internal: false })).id;
    hidden = (await createRow(w, categories.id, { name: 'Secret', internal: true })).id;
    rows = {
      a: (await createRow(w, products.id, { title: { en: 'Boot' }, price: 10, cost: 4, notes: 'supplier zebra', category: shown })).id,
      b: (await createRow(w, products.id, { title: { en: 'Cap' }, price: 20, cost: 9, category: hidden })).id,
      draft: (await createRow(w, products.id, { title: { en: 'Soon' }, price: 30 }, { status: 'DRAFT' })).id,
    };
    ({ key: store } = await keyWith([
      { table: products.key, actions: ['read'], fields: { read: ['title', 'price', 'category'] } },
      { table: categories.key, actions: ['read'], where: [{ i: 'internal', w: 'eq', v: false }], fields: { read: ['name'] } },
    ]));
  });

  it('lists PUBLISHED rows without the hidden columns, with totals to match', async () => {
    const body = await list(w, products.id, store);
    expect(body.list.map((r) => r.id).sort()).toEqual([rows.a, rows.b].sort());
    expect(body.pagination.total).toBe(2);
    for (const row of body.list) expect(Object.keys(row.data ?? {}).every((k) => ['title', 'price', 'category'].includes(k))).toBe(true);
    const cats = await list(w, categories.id, store);
    expect(cats.list.map((r) => r.id)).toEqual([shown]);
    expect(cats.pagination.total).toBe(1);
  });

  it('answers a hidden column in fields, filter or sort exactly as an unknown one', async () => {
    for (const [param, hiddenValue, unknownValue] of [
      ['fields', 'cost', 'nope'],
      ['filter', [{ i: 'cost', w: 'gt', v: 1 }], [{ i: 'nope', w: 'gt', v: 1 }]],
      ['sort', [{ i: 'cost' }], [{ i: 'nope' }]],
    ] as const) {
      const a = await t.call('GET', contentsPath(w, products.id) + q({ [param]: hiddenValue }), { token: store });
      const b = await t.call('GET', contentsPath(w, products.id) + q({ [param]: unknownValue }), { token: store });
      expectError(a, 400, 'INVALID_QUERY');
      expect(a.json.error.message.replace('cost', 'X')).toBe(b.json.error.message.replace('nope', 'X'));
    }
  });

  it('search matches readable columns only', async () => {
    const body = await list(w, products.id, store, { search: 'zebra' });
    expect(body.list).toEqual([]);
    expect((await list(w, products.id, w.writeKey, { search: 'zebra' })).list.map((r) => r.id)).toEqual([rows.a]);
  });

  it('read one: hidden columns absent, a DRAFT row 404, a row outside the where 404', async () => {
    const one = expectStatus(await getRow(w, products.id, rows.a, store), 200);
    expect(one.data).toEqual({ title: { en: 'Boot' }, price: 10, category: shown });
    expect(one).not.toHaveProperty('hasDraft');
    expectError(await getRow(w, products.id, rows.draft, store), 404, 'NOT_FOUND');
    expectError(await getRow(w, categories.id, hidden, store), 404, 'NOT_FOUND');
  });

  it('expand gives null for a category outside the rules; dotted filters never match it', async () => {
    const body = await list(w, products.id, store, { expand: 'category', sort: [{ i: 'price' }] });
    expect(body.list.map((r) => r.data?.category)).toEqual([{ id: shown, data: { name: 'Shoes' }, slug: null, status: 'PUBLISHED', createdAt: expect.any(String), updatedAt: expect.any(String), publishedAt: expect.any(String), publishAt: null, version: 1 }, null]);
    const dotted = await list(w, products.id, store, { filter: [{ i: 'category.name', w: 'eq', v: 'Secret' }] });
    expect(dotted.list).toEqual([]);
    expect(dotted.pagination.total).toBe(0);
    const hiddenPath = await t.call('GET', contentsPath(w, products.id) + q({ filter: [{ i: 'category.internal', w: 'eq', v: true }] }), { token: store });
    expectError(hiddenPath, 400, 'INVALID_QUERY');
  });

  it('referrers count only rows and columns the key reads', async () => {
    const res = expectStatus(await t.call('GET', `${contentsPath(w, categories.id, shown)}/referrers`, { token: store }), 200);
    expect(res).toEqual([expect.objectContaining({ tableId: products.id, column: 'category', count: 1 })]);
  });

  it('403 on a table without a rule, on writes, drafts and revisions', async () => {
    expectError(await t.call('GET', contentsPath(w, orders.id), { token: store }), 403, 'FORBIDDEN');
    expectError(await postRow(w, products.id, { data: { price: 1 } }, store), 403, 'FORBIDDEN');
    expectError(await getRow(w, products.id, rows.a, store, '?version=draft'), 403, 'FORBIDDEN');
    expectError(await t.call('GET', `${contentsPath(w, products.id, rows.a)}/revisions`, { token: store }), 403, 'FORBIDDEN');
  });

  it('tables and columns lists show what the key reads', async () => {
    const tables = expectStatus(await t.call('GET', tablesPath(w), { token: store }), 200);
    expect(tables.list.map((x: { key: string }) => x.key).sort()).toEqual([categories.key, products.key].sort());
    const columns = expectStatus(await t.call('GET', `${tablesPath(w, products.id)}/columns`, { token: store }), 200);
    expect(columns.list.map((c: { name: string }) => c.name)).toEqual(['title', 'price', 'category']);
    expectError(await t.call('GET', `${tablesPath(w, products.id)}/columns/cost`, { token: store }), 404, 'NOT_FOUND');
  });

  it('export holds the same rows and columns as the list', async () => {
    const res = await t.call('GET', `${contentsPath(w, products.id)}/export`, { token: store });
    expect(res.status, res.text).toBe(200);
    const lines = res.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id).sort()).toEqual([rows.a, rows.b].sort());
    expect(lines.every((l) => !('cost' in (l.data ?? {})) && !('notes' in (l.data ?? {})))).toBe(true);
  });
});

describe('an author key: its own rows ($me)', () => {
  let author: { key: string; id: string };
  let mine: string;
  let theirs: string;

  beforeAll(async () => {
    // Authors write drafts (every status read); publishing is someone else's.
    author = await keyWith([
      { table: products.key, actions: ['read', 'create', 'update'], where: [{ i: 'owner', w: 'eq', v: '$me' }], statuses: ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] },
    ]);
    theirs = (await createRow(w, products.id, { title: { en: 'Theirs' }, owner: 'someone' })).id;
  });

  it('creates inside the where, 403 outside it, and nothing is written', async () => {
    const before = (await list(w, products.id, w.writeKey)).pagination.total;
    const created = await postRow(w, products.id, { data: { title: { en: 'Mine' }, owner: author.id }, status: 'DRAFT' }, author.key);
    expect(created.status, created.text).toBe(201);
    mine = created.json.id;
    expectError(await postRow(w, products.id, { data: { title: { en: 'Fake' }, owner: 'someone' }, status: 'DRAFT' }, author.key), 403, 'FORBIDDEN');
    // The table's default status is PUBLISHED: a create that publishes needs `publish`.
    expectError(await postRow(w, products.id, { data: { title: { en: 'Live' }, owner: author.id } }, author.key), 403, 'FORBIDDEN');
    expect((await list(w, products.id, w.writeKey)).pagination.total).toBe(before + 1);
  });

  it('lists its own rows only; another author row is 404 to read and to write', async () => {
    const body = await list(w, products.id, author.key);
    expect(body.list.map((r) => r.id)).toEqual([mine]);
    expect(body.pagination.total).toBe(1);
    expectError(await getRow(w, products.id, theirs, author.key), 404, 'NOT_FOUND');
    expectError(await putRow(w, products.id, theirs, { data: { price: 1 } }, author.key), 404, 'NOT_FOUND');
  });

  it('cannot move its row out of the where, nor publish or delete without the actions', async () => {
    const res = await putRow(w, products.id, mine, { data: { owner: 'someone' } }, author.key);
    expectError(res, 403, 'FORBIDDEN');
    expect(expectStatus(await getRow(w, products.id, mine), 200).data.owner).toBe(author.id);
    expect(expectStatus(await putRow(w, products.id, mine, { data: { price: 5 } }, author.key), 200).data.price).toBe(5);
    expectError(await putRow(w, products.id, mine, { status: 'PUBLISHED' }, author.key), 403, 'FORBIDDEN');
    expectError(await t.call('DELETE', contentsPath(w, products.id, mine), { token: author.key }), 403, 'FORBIDDEN');
  });
});

describe('a translator: only title.fr', () => {
  it('writes the French title, 403 naming any other column or locale', async () => {
    const { key } = await keyWith([{ table: products.key, actions: ['read', 'update'], fields: { write: ['title.fr'] } }]);
    const row = (await createRow(w, products.id, { title: { en: 'Hat' }, price: 3 })).id;
    const ok = expectStatus(await putRow(w, products.id, row, { data: { title: { fr: 'Chapeau' } } }, key), 200);
    expect(ok.data.title).toEqual({ en: 'Hat', fr: 'Chapeau' });
    const en = await putRow(w, products.id, row, { data: { title: { en: 'Cap' } } }, key);
    expectError(en, 403, 'FORBIDDEN');
    expect(en.json.error.message).toContain('"title.en"');
    const price = await putRow(w, products.id, row, { data: { price: 4 } }, key);
    expectError(price, 403, 'FORBIDDEN');
    expect(price.json.error.message).toContain('"price"');
    expect(expectStatus(await getRow(w, products.id, row), 200).data).toMatchObject({ title: { en: 'Hat', fr: 'Chapeau' }, price: 3 });
  });
});

describe('a preview key and an agent key', () => {
  it('preview: every status and pending drafts', async () => {
    const { key } = await keyWith([{ table: '*', actions: ['read'], statuses: ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'], drafts: true }]);
    const draft = (await createRow(w, products.id, { title: { en: 'Hidden' } }, { status: 'DRAFT' })).id;
    expect(expectStatus(await getRow(w, products.id, draft, key), 200).hasDraft).toBe(false);
    const live = (await createRow(w, products.id, { title: { en: 'Live' } })).id;
    expectStatus(await putRow(w, products.id, live, { draft: true, data: { title: { en: 'Next' } } }), 200);
    expect(expectStatus(await getRow(w, products.id, live, key, '?version=draft'), 200).data.title).toEqual({ en: 'Next' });
  });

  it('agent: an update of a PUBLISHED row becomes its draft; publishing it is 403', async () => {
    const { key } = await keyWith([{ table: products.key, actions: ['read', 'update'], statuses: ['DRAFT', 'PUBLISHED'], writeAsDraft: true, drafts: true }]);
    const row = (await createRow(w, products.id, { title: { en: 'Original' } })).id;
    const res = expectStatus(await putRow(w, products.id, row, { data: { title: { en: 'Proposed' } } }, key), 200);
    expect(res.data.title).toEqual({ en: 'Original' });
    expect(res.hasDraft).toBe(true);
    expect(expectStatus(await getRow(w, products.id, row, w.writeKey, '?version=draft'), 200).data.title).toEqual({ en: 'Proposed' });
    expectError(await t.call('POST', `${contentsPath(w, products.id, row)}/draft/publish`, { token: key }), 403, 'FORBIDDEN');
    expect(expectStatus(await getRow(w, products.id, row, w.readKey), 200).data.title).toEqual({ en: 'Original' });
    // A row not yet published has no live values to protect: the agent's update writes it.
    const unpublished = (await createRow(w, products.id, { title: { en: 'Idea' } }, { status: 'DRAFT' })).id;
    const direct = expectStatus(await putRow(w, products.id, unpublished, { data: { title: { en: 'Better idea' } } }, key), 200);
    expect(direct.data.title).toEqual({ en: 'Better idea' });
    expect(direct.hasDraft).toBe(false);
  });
});

describe('explain', () => {
  it('answers the caller about itself, and an ADMIN about a key, per row', async () => {
    const author = await keyWith([
      { table: products.key, actions: ['read', 'update'], where: [{ i: 'owner', w: 'eq', v: '$me' }], fields: { write: ['title.fr'] } },
    ]);
    const own = (await createRow(w, products.id, { owner: author.id })).id;
    const other = (await createRow(w, products.id, { owner: 'x' })).id;
    const path = `/v1/${w.projectId}/access/explain`;
    const self = expectStatus(await t.call('GET', path + q({ table: products.key }), { token: author.key }), 200);
    expect(self.actions.read).toEqual({ allowed: true, rules: [0] });
    expect(self.actions.delete).toEqual({ allowed: false, rules: [] });
    expect(self.fields.write).toEqual(['title.fr']);
    expect(self.fields.read).toContain('cost');
    const onOwn = expectStatus(await t.call('GET', path + q({ table: products.key, contentsId: own, apiKeyId: author.id })), 200);
    expect(onOwn.actions.update.allowed).toBe(true);
    const onOther = expectStatus(await t.call('GET', path + q({ table: products.key, contentsId: other, apiKeyId: author.id })), 200);
    expect(onOther.actions.update).toEqual({ allowed: false, rules: [] });
    expectError(await t.call('GET', path + q({ table: products.key, contentsId: other }), { token: author.key }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', path + q({ table: products.key, apiKeyId: author.id }), { token: author.key }), 403, 'FORBIDDEN');
  });
});

describe('expand', () => {
  it('an expanded row shows hasDraft as reading it does: per the drafts of its own table', async () => {
    const category = (await createRow(w, categories.id, { name: 'Hats', internal: false })).id;
    const product = (await createRow(w, products.id, { title: { en: 'Fedora' }, category })).id;
    const productDrafts = await keyWith([{ table: products.key, actions: ['read'], drafts: true }, { table: categories.key, actions: ['read'] }]);
    const categoryDrafts = await keyWith([{ table: products.key, actions: ['read'] }, { table: categories.key, actions: ['read'], drafts: true }]);
    const a = expectStatus(await getRow(w, products.id, product, productDrafts.key, '?expand=category'), 200);
    expect([a.hasDraft, a.data.category.id, 'hasDraft' in a.data.category]).toEqual([false, category, false]);
    const b = expectStatus(await getRow(w, products.id, product, categoryDrafts.key, '?expand=category'), 200);
    expect(['hasDraft' in b, b.data.category.hasDraft]).toEqual([false, false]);
  });
});

describe('the list cache keeps policies apart', () => {
  it('two keys with different wheres on the same list never share an answer', async () => {
    const a = await keyWith([{ table: products.key, actions: ['read'], where: [{ i: 'price', w: 'lt', v: 15 }] }]);
    const b = await keyWith([{ table: products.key, actions: ['read'], where: [{ i: 'price', w: 'gte', v: 15 }] }]);
    for (let round = 0; round < 2; round++) {
      const [la, lb] = [await list(w, products.id, a.key), await list(w, products.id, b.key)];
      expect(la.list.every((r) => (r.data?.price as number) < 15)).toBe(true);
      expect(lb.list.every((r) => (r.data?.price as number) >= 15)).toBe(true);
    }
  });
});

describe('cross-project', () => {
  it("a role key of one project gets 403 in another, whatever the other's roles", async () => {
    const { key } = await keyWith([{ table: '*', actions: ['read'] }]);
    const other = await buildWorld(t);
    const table = await createTable(other, [{ name: 'x', type: 'text' }]);
    expectError(await t.call('GET', contentsPath(other, table.id), { token: key }), 403, 'FORBIDDEN');
  });
});

describe('the project OpenAPI document and deleted columns', () => {
  it("a role's document holds its tables and readable columns only", async () => {
    const { key } = await keyWith([{ table: products.key, actions: ['read'], fields: { read: ['title', 'price'] } }]);
    const doc = expectStatus(await t.call('GET', `/v1/${w.projectId}/openapi.json`, { token: key }), 200);
    const text = JSON.stringify(doc);
    expect(text).toContain(products.key);
    expect(text).not.toContain(orders.key);
    expect(text).not.toContain('"cost"');
  });

  it('a rule whose where names a deleted column grants nothing', async () => {
    const table = await createTable(w, [
      { name: 'name', type: 'text' },
      { name: 'flag', type: 'boolean' },
    ]);
    await createRow(w, table.id, { name: 'x', flag: true });
    const { key } = await keyWith([{ table: table.key, actions: ['read'], where: [{ i: 'flag', w: 'eq', v: true }] }]);
    expect((await list(w, table.id, key)).list).toHaveLength(1);
    expect((await t.call('DELETE', `${tablesPath(w, table.id)}/columns/flag`)).status).toBe(204);
    expectError(await t.call('GET', contentsPath(w, table.id), { token: key }), 403, 'FORBIDDEN');
  });
});
