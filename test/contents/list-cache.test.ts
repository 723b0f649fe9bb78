import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectStatus, list, putRow, type World } from './fixture.js';

/**
 * Lists and totals are cached per process under the table's change counter and schema
 * (result-cache.ts): every write, on any process, and every column change must show at once.
 */
let t: TestApi;
let w: World;
let other: RunningApi;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  other = await startApi(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '20000' }), t.db.url, createLogger('silent'));
});
afterAll(async () => {
  await other?.close(1000);
  await t?.close();
});

const titles = (body: { list: { data?: Record<string, unknown> }[] }) => body.list.map((r) => r.data?.title);

describe('cached lists stay exact', () => {
  it('creates, updates, status changes and deletes show in the same list at once', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const query = { filter: [{ i: 'title', w: 'startsWith', v: 'a' }], sort: [{ i: 'title', o: 'asc' }] };
    expect((await list(w, table.id, w.readKey, query)).pagination.total).toBe(0);
    const a1 = await createRow(w, table.id, { title: 'a1' });
    expect(titles(await list(w, table.id, w.readKey, query))).toEqual(['a1']);
    await createRow(w, table.id, { title: 'a2' }, { status: 'DRAFT' });
    expect(titles(await list(w, table.id, w.readKey, query))).toEqual(['a1']);
    expect(titles(await list(w, table.id, w.writeKey, query))).toEqual(['a1', 'a2']);
    expectStatus(await putRow(w, table.id, a1.id, { data: { title: 'a0' } }), 200);
    const body = await list(w, table.id, w.readKey, query);
    expect([titles(body), body.pagination.total]).toEqual([['a0'], 1]);
    expectStatus(await putRow(w, table.id, a1.id, { status: 'DRAFT' }), 200);
    expect((await list(w, table.id, w.readKey, query)).pagination.total).toBe(0);
    expect((await t.call('DELETE', contentsPath(w, table.id, a1.id), { token: w.writeKey })).status).toBe(204);
    expect(titles(await list(w, table.id, w.writeKey, query))).toEqual(['a2']);
  });

  it('the same page with and without withCount answers each its own way', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createRow(w, table.id, { title: 'a' });
    expect((await list(w, table.id, w.readKey)).pagination).toMatchObject({ total: 1, pages: 1 });
    expect((await list(w, table.id, w.readKey, { withCount: 'false' })).pagination).toMatchObject({ total: null, pages: null, hasNext: false });
    expect((await list(w, table.id, w.readKey)).pagination).toMatchObject({ total: 1, pages: 1 });
  });

  it('column changes show at once: rename, delete, added default', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'note', type: 'text' }]);
    await createRow(w, table.id, { title: 'x', note: 'n' });
    expect((await list(w, table.id, w.readKey)).list[0].data).toEqual({ title: 'x', note: 'n' });
    expectStatus(await t.call('PUT', columnsPath(w, table.id, table.columns.note.id), { body: { name: 'remark' } }), 200);
    expect((await list(w, table.id, w.readKey)).list[0].data).toEqual({ title: 'x', remark: 'n' });
    expect((await t.call('DELETE', columnsPath(w, table.id, table.columns.note.id))).status).toBe(204);
    expect((await list(w, table.id, w.readKey)).list[0].data).toEqual({ title: 'x' });
    expect((await t.call('POST', columnsPath(w, table.id), { body: { name: 'rank', type: 'integer', settings: { defaultValue: 3 } } })).status).toBe(201);
    expect((await list(w, table.id, w.readKey)).list[0].data).toEqual({ title: 'x', rank: 3 });
  });

  it('a write through another API process shows at once on this one', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createRow(w, table.id, { title: 'first' });
    expect((await list(w, table.id, w.readKey)).pagination.total).toBe(1);
    const res = await fetch(`${other.url}${contentsPath(w, table.id)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.writeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { title: 'second' } }),
    });
    expect(res.status).toBe(201);
    const body = await list(w, table.id, w.readKey, { sort: [{ i: 'title', o: 'asc' }] });
    expect([titles(body), body.pagination.total]).toEqual([['first', 'second'], 2]);
  });
});
