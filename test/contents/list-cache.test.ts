import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createPool } from '../../src/db/pool.js';
import { parseSnapshot } from '../../src/modules/contents/list-cache/change-log.js';
import { ListCache, type Lookup } from '../../src/modules/contents/list-cache/list-cache.js';
import { parseListQuery } from '../../src/modules/query/index.js';
import { TableDefinitions } from '../../src/modules/tables/table-definitions.js';
import { openOrm } from '../../src/db/orm.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectStatus, list, putRow, type World } from './fixture.js';
import { createOrmConfig } from '../../mikro-orm.config.js';

/**
 * Lists and totals are cached per process and kept up to date from the change log
 * (list-cache/): every write, on any process, and every column change must show at once.
 * The model-based test (list-cache-model.test.ts) covers random sequences; these cases pin the
 * edges a random run rarely reaches.
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

  it('the same page asked with other system fields answers with those fields', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    await createRow(w, table.id, { title: 'a' });
    const sort = [{ i: 'title' }];
    expect((await list(w, table.id, w.readKey, { sort, fields: 'title' })).list[0]).not.toHaveProperty('status');
    expect((await list(w, table.id, w.readKey, { sort, fields: 'title,status,createdAt' })).list[0]).toMatchObject({ status: 'PUBLISHED', createdAt: expect.any(String) });
    expect((await list(w, table.id, w.readKey, { sort, fields: 'title' })).list[0]).not.toHaveProperty('status');
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

  it('the row just after a full page leaving makes that page the last', async () => {
    const table = await createTable(w, [{ name: 'price', type: 'number' }]);
    for (const price of [1, 2, 3]) await createRow(w, table.id, { price });
    const third = (await list(w, table.id, w.writeKey, { sort: [{ i: 'price', o: 'desc' }] })).list[0].id;
    const query = { sort: [{ i: 'price', o: 'asc' }], size: '2', withCount: 'false' };
    expect((await list(w, table.id, w.readKey, query)).pagination.hasNext).toBe(true);
    expect((await t.call('DELETE', contentsPath(w, table.id, third), { token: w.writeKey })).status).toBe(204);
    expect((await list(w, table.id, w.readKey, query)).pagination).toMatchObject({ hasNext: false, nextCursor: null });
  });

  it('a count that already saw a change does not count it again when the change arrives later', async () => {
    const table = await createTable(w, [{ name: 'price', type: 'number' }]);
    await createRow(w, table.id, { price: 5 });
    const orm = await openOrm(createOrmConfig(t.db.url), { migrate: false });
    const pool = createPool(t.db.url, 3, createLogger('silent'));
    try {
      const def = (await new TableDefinitions(orm).get(w.projectId, table.id))!;
      const query = parseListQuery({ page: 1, size: 20, withCount: true, filter: JSON.stringify([{ i: 'price', w: 'gt', v: 1 }]) }, def, { locales: ['en', 'fr'], defaultLocale: 'en' });
      const statement = { text: 'select count(*)::float8 as total, pg_current_snapshot()::text as snapshot from contents where table_id = $1 and (data->>\'price\')::float8 > 1', values: [table.id] };
      const cache = new ListCache();
      const lookup = (seq: number): Lookup => ({ tableId: table.id, query: statement, variant: 'v', shape: { query }, seq });
      const countNow = async () => {
        const [row] = (await pool.query(statement)).rows;
        return { total: Number(row.total), snapshot: parseSnapshot(row.snapshot) };
      };
      const before = await cache.syncTable(pool, table.id);
      // While the count loads: a row is created, the count sees it, then a sync reads it as a change.
      const total = await cache.count(lookup(before.seq), async () => {
        await createRow(w, table.id, { price: 9 });
        const counted = await countNow();
        await cache.syncTable(pool, table.id);
        return counted;
      });
      expect(total).toBe(2);
      const after = await cache.syncTable(pool, table.id);
      let loads = 0;
      const cached = await cache.count(lookup(after.seq), async () => (loads++, countNow()));
      expect([cached, loads]).toEqual([2, 0]);
      // And a change after the count moves it by one without a load.
      await createRow(w, table.id, { price: 10 });
      const later = await cache.syncTable(pool, table.id);
      expect([await cache.count(lookup(later.seq), async () => (loads++, countNow())), loads]).toEqual([3, 0]);
    } finally {
      await pool.end();
      await orm.close();
    }
  });

  it('concurrent misses of one result share one load, and a failed load is not kept', async () => {
    const cache = new ListCache();
    const shape = { query: { filters: [], op: 'and' as const, sort: [] }, publicOnly: false };
    const lookup: Lookup = { tableId: 't1', query: { text: 'select 1', values: [] }, variant: 'v', shape, seq: 0 };
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const page = { list: [1], hasNext: false, nextCursor: null, bounds: { last: null, next: null }, rows: [] };
    const waiting = Array.from({ length: 20 }, () => cache.page(lookup, async () => (loads++, await gate, page)));
    release();
    expect(await Promise.all(waiting)).toEqual(Array(20).fill(page));
    expect(loads).toBe(1);
    const failing = await Promise.allSettled([1, 2].map(() => cache.count({ ...lookup, variant: 'c' }, async () => (loads++, Promise.reject(new Error('database gone'))))));
    expect(failing.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(loads).toBe(2);
    expect(await cache.count({ ...lookup, variant: 'c' }, async () => ({ total: 7, snapshot: parseSnapshot('1:1:') }))).toBe(7);
  });

  it('a first page takes created rows in their place without loading again; later pages load again', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'rank', type: 'number' }]);
    for (const rank of [10, 20, 30]) await createRow(w, table.id, { title: `r${rank}`, rank });
    const pool = t.api.deps.pool;
    const loads = () => (pool.query as unknown as { mock: { calls: unknown[][] } }).mock.calls.filter(([q]) => /as "_k0"/.test(typeof q === 'string' ? q : (q as { text: string }).text)).length;
    vi.spyOn(pool, 'query');
    try {
      const byRank = { sort: [{ i: 'rank', o: 'asc' }], size: '2' };
      const ranks = async (query: Record<string, unknown>) => {
        const body = await list(w, table.id, w.writeKey, query);
        return [body.list.map((r) => r.data?.rank), body.pagination.hasNext, body.pagination.total];
      };
      const newest = { size: '2' }; // the default order: newest first
      expect(await ranks(newest)).toEqual([[30, 20], true, 3]);
      expect(await ranks(byRank)).toEqual([[10, 20], true, 3]);
      expect(await ranks({ ...byRank, page: '2' })).toEqual([[30], false, 3]);
      const loaded = loads();
      await createRow(w, table.id, { title: 'r15', rank: 15 });
      expect(await ranks(newest)).toEqual([[15, 30], true, 4]);
      expect(await ranks(byRank)).toEqual([[10, 15], true, 4]);
      await createRow(w, table.id, { title: 'r40', rank: 40 }); // after the first page and its next row
      expect(await ranks(byRank)).toEqual([[10, 15], true, 5]);
      expect(loads(), 'page 1 of both orders patched, not loaded').toBe(loaded);
      // Page 2 of the rank order moved by the create before it: loaded again.
      expect(await ranks({ ...byRank, page: '2' })).toEqual([[20, 30], true, 5]);
      expect(loads()).toBe(loaded + 1);
    } finally {
      vi.mocked(pool.query).mockRestore();
    }
  });
});
