import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  addColumn,
  buildWorld,
  columnsPath,
  contentsPath,
  createRow,
  createTable,
  expectError,
  expectStatus,
  getRow,
  list,
  postRow,
  putRow,
  type World,
} from './fixture.js';

/**
 * Referential integrity (docs/contents.md#references): `onDelete` of reference columns (setNull by default, restrict,
 * cascade) applied in the delete's own transaction, with its events, and `GET .../referrers`.
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

const del = (table: string, id: string, token = w.writeKey) => t.call('DELETE', contentsPath(w, table, id), { token });
const referrers = (table: string, id: string, token = w.writeKey) => t.call('GET', `${contentsPath(w, table, id)}/referrers`, { token });

/** Events queued for one row, by type, sorted (the events of one transaction share a millisecond). */
async function eventsOf(id: string): Promise<string[]> {
  const { rows } = await db.query(`select payload->>'type' as type from event_outbox where payload->'data'->>'id' = $1 order by id`, [id]);
  return rows.map((r) => r.type as string).sort();
}

async function authorsAndArticles(onDelete?: string) {
  const authors = await createTable(w, [{ name: 'name', type: 'text' }]);
  const settings = (multiple: boolean) => ({ table: authors.id, multiple, ...(onDelete ? { onDelete } : {}) });
  const articles = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'author', type: 'reference', settings: settings(false) },
    { name: 'editors', type: 'reference', settings: settings(true) },
  ]);
  const [ada, bob] = [await createRow(w, authors.id, { name: 'Ada' }), await createRow(w, authors.id, { name: 'Bob' })];
  return { authors, articles, ada, bob };
}

describe('onDelete of reference columns', () => {
  it('setNull (the default) clears single references and removes the id from arrays, keeping their order', async () => {
    const { authors, articles, ada, bob } = await authorsAndArticles();
    const cyd = await createRow(w, authors.id, { name: 'Cyd' });
    const one = await createRow(w, articles.id, { title: 'One', author: ada.id, editors: [bob.id, ada.id, cyd.id] });
    const two = await createRow(w, articles.id, { title: 'Two', author: bob.id, editors: [ada.id] });
    // A cached list must see the cleared references too.
    expect((await list(w, articles.id, w.writeKey)).list).toHaveLength(2);

    expect((await del(authors.id, ada.id)).status).toBe(204);
    expect(expectStatus(await getRow(w, articles.id, one.id), 200).data).toEqual({ title: 'One', editors: [bob.id, cyd.id] });
    expect(expectStatus(await getRow(w, articles.id, two.id), 200).data).toEqual({ title: 'Two', author: bob.id, editors: [] });
    const listed = (await list(w, articles.id, w.writeKey, { sort: [{ i: 'title', o: 'asc' }] })).list;
    expect(listed.map((row) => row.data)).toEqual([
      { title: 'One', editors: [bob.id, cyd.id] },
      { title: 'Two', author: bob.id, editors: [] },
    ]);
    // Each changed row fires contents.updated; the untouched author rows fire nothing.
    expect(await eventsOf(one.id)).toEqual(['contents.created', 'contents.published', 'contents.updated'].sort());
    expect(await eventsOf(two.id)).toEqual(['contents.created', 'contents.published', 'contents.updated'].sort());
    expect(await eventsOf(ada.id)).toEqual(['contents.created', 'contents.published', 'contents.deleted'].sort());
    expect(await eventsOf(bob.id)).toEqual(['contents.created', 'contents.published'].sort());
  });

  it('restrict refuses the delete with 409 naming the table, the column and the referencing ids; nothing changes', async () => {
    const { authors, articles, ada, bob } = await authorsAndArticles('restrict');
    const one = await createRow(w, articles.id, { title: 'One', editors: [bob.id, ada.id] });
    const error = expectError(await del(authors.id, ada.id), 409, 'CONFLICT');
    expect(error.message).toContain(`"${articles.key}"`);
    expect(error.message).toContain('"editors"');
    expect(error.message).toContain(one.id);
    expect(expectStatus(await getRow(w, authors.id, ada.id), 200).data).toEqual({ name: 'Ada' });
    expect(expectStatus(await getRow(w, articles.id, one.id), 200).data.editors).toEqual([bob.id, ada.id]);
    expect(await eventsOf(ada.id)).toEqual(['contents.created', 'contents.published'].sort());
    // Once nothing references it, it goes.
    expectStatus(await putRow(w, articles.id, one.id, { data: { editors: [bob.id] } }), 200);
    expect((await del(authors.id, ada.id)).status).toBe(204);
  });

  it('cascade deletes the referencing rows, and theirs in turn, each with contents.deleted and the totals kept', async () => {
    const { authors, articles, ada, bob } = await authorsAndArticles('cascade');
    const comments = await createTable(w, [
      { name: 'body', type: 'text' },
      { name: 'article', type: 'reference', settings: { table: articles.id, onDelete: 'cascade' } },
    ]);
    const byAda = await createRow(w, articles.id, { title: 'By Ada', author: ada.id });
    const editedByAda = await createRow(w, articles.id, { title: 'Edited', author: bob.id, editors: [bob.id, ada.id] });
    const kept = await createRow(w, articles.id, { title: 'Bob alone', author: bob.id });
    const comment = await createRow(w, comments.id, { body: 'Nice', article: byAda.id });
    const keptComment = await createRow(w, comments.id, { body: 'Fine', article: kept.id });
    expect((await list(w, articles.id, w.writeKey)).pagination.total).toBe(3);

    expect((await del(authors.id, ada.id)).status).toBe(204);
    for (const [table, id] of [[articles.id, byAda.id], [articles.id, editedByAda.id], [comments.id, comment.id]]) {
      expectError(await getRow(w, table, id), 404, 'NOT_FOUND');
      expect(await eventsOf(id)).toEqual(['contents.created', 'contents.published', 'contents.deleted'].sort());
    }
    expect((await list(w, articles.id, w.writeKey)).list.map((row) => row.id)).toEqual([kept.id]);
    expect((await list(w, articles.id, w.writeKey)).pagination.total).toBe(1);
    expect((await list(w, comments.id, w.writeKey)).pagination.total).toBe(1);
    expectStatus(await getRow(w, comments.id, keptComment.id), 200);
  });

  it('a cascade that reaches a restrict column is refused as a whole', async () => {
    const { authors, articles, ada } = await authorsAndArticles('cascade');
    const pins = await createTable(w, [{ name: 'article', type: 'reference', settings: { table: articles.id, onDelete: 'restrict' } }]);
    const article = await createRow(w, articles.id, { title: 'Pinned', author: ada.id });
    const pin = await createRow(w, pins.id, { article: article.id });
    const error = expectError(await del(authors.id, ada.id), 409, 'CONFLICT');
    expect(error.message).toContain(pin.id);
    expectStatus(await getRow(w, authors.id, ada.id), 200);
    expectStatus(await getRow(w, articles.id, article.id), 200);
  });

  it('a row that references itself, or a cycle of cascades, ends', async () => {
    const nodes = await createTable(w, [{ name: 'name', type: 'text' }]);
    await addColumn(w, nodes.id, { name: 'parent', type: 'reference', settings: { table: nodes.id, onDelete: 'cascade' } });
    const root = await createRow(w, nodes.id, { name: 'root' });
    const child = await createRow(w, nodes.id, { name: 'child', parent: root.id });
    const grandchild = await createRow(w, nodes.id, { name: 'grandchild', parent: child.id });
    expectStatus(await putRow(w, nodes.id, root.id, { data: { parent: grandchild.id } }), 200);
    expect((await del(nodes.id, child.id)).status).toBe(204);
    expect((await list(w, nodes.id, w.writeKey)).pagination.total).toBe(0);
  });

  it('onDelete is checked like every setting', async () => {
    const { authors, articles } = await authorsAndArticles();
    for (const settings of [{ table: authors.id, onDelete: 'nullify' }, { table: authors.id, onDelete: 1 }]) {
      const res = await t.call('POST', columnsPath(w, articles.id), { body: { name: 'other', type: 'reference', settings } });
      expect(expectError(res, 400, 'BAD_REQUEST').message).toContain('settings.onDelete');
    }
    const onText = await t.call('POST', columnsPath(w, articles.id), { body: { name: 'other', type: 'text', settings: { onDelete: 'cascade' } } });
    expect(expectError(onText, 400, 'BAD_REQUEST').message).toContain('settings.onDelete');
    // Changed later like any setting: a null removes it, which means setNull again.
    const column = articles.columns.author;
    const changed = await t.call('PUT', columnsPath(w, articles.id, column.id), { body: { settings: { onDelete: 'restrict' } } });
    expect(expectStatus(changed, 200).settings).toEqual({ table: authors.id, multiple: false, onDelete: 'restrict' });
  });
});

describe('referrers', () => {
  it('counts the live references to a row per column; read keys count public rows only', async () => {
    const { authors, articles, ada, bob } = await authorsAndArticles();
    await createRow(w, articles.id, { title: 'One', author: ada.id, editors: [ada.id, bob.id] });
    await createRow(w, articles.id, { title: 'Two', author: ada.id }, { status: 'DRAFT' });
    await createRow(w, articles.id, { title: 'Three', author: bob.id });
    const expected = (author: number, editors: number) =>
      [
        { tableId: articles.id, tableKey: articles.key, column: 'author', count: author },
        { tableId: articles.id, tableKey: articles.key, column: 'editors', count: editors },
      ].filter((r) => r.count > 0);
    expect(expectStatus(await referrers(authors.id, ada.id), 200)).toEqual(expected(2, 1));
    expect(expectStatus(await referrers(authors.id, ada.id, w.readKey), 200)).toEqual(expected(1, 1));
    expect(expectStatus(await referrers(authors.id, bob.id), 200)).toEqual(expected(1, 1));
    const nobody = await createRow(w, authors.id, { name: 'Nobody' });
    expect(expectStatus(await referrers(authors.id, nobody.id), 200)).toEqual([]);
    const hidden = await createRow(w, authors.id, { name: 'Hidden' }, { status: 'DRAFT' });
    expectError(await referrers(authors.id, hidden.id, w.readKey), 404, 'NOT_FOUND');
    expectError(await referrers(authors.id, '0190b0a0-0000-7000-8000-00000000c0de'), 404, 'NOT_FOUND');
    expectError(await referrers(authors.id, ada.id, ''), 401, 'UNAUTHORIZED');
  });
});

describe('concurrent deletes and references', () => {
  it('a reference written while its target is deleted is either refused (422) or cleared: never left dangling', async () => {
    const { authors, articles } = await authorsAndArticles();
    for (let round = 0; round < 8; round++) {
      const target = await createRow(w, authors.id, { name: `Target ${round}` });
      const existing = await createRow(w, articles.id, { title: `Existing ${round}` });
      const writes = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => postRow(w, articles.id, { data: { title: `New ${round}.${i}`, author: target.id, editors: [target.id] } })),
        putRow(w, articles.id, existing.id, { data: { author: target.id } }),
        del(authors.id, target.id),
      ]);
      for (const res of writes) expect([200, 201, 204, 422], res.text).toContain(res.status);
      const { rows } = await db.query(
        `select id from contents where table_id = $1 and (data->>'author' = $2 or data->'editors' @> jsonb_build_array($2::text))`,
        [articles.id, target.id],
      );
      expect(rows, `round ${round}`).toEqual([]);
    }
  });
});
