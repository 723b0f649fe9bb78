import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { clientFor, startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildWorld, columnsPath, contentsPath, createRow, createTable, expectStatus, getRow, roleKey, type Table, type World } from './fixture.js';

/*
 * A read by id is answered from the process's row images once the table's committed changes are
 * read (contents/rows/read.ts, list-cache/row-cache.ts); a read by slug still selects the row.
 * Each row here has a slug that no write changes, so the same row read both ways must answer the
 * same status, body and entity tag, for every kind of caller and shape of read, after random
 * writes through this process and through another one.
 */
let t: TestApi;
let w: World;
let other: RunningApi;
let table: Table;
let callers: Record<string, string>;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  other = await startApi(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' }), t.db.url, createLogger('silent'));
  table = await createTable(w, [
    { name: 'title', type: 'text' },
    { name: 'name', type: 'text', settings: { localized: true } },
    { name: 'price', type: 'number' },
    { name: 'secret', type: 'text' },
    { name: 'handle', type: 'slug' },
  ]);
  callers = {
    write: w.writeKey,
    read: w.readKey,
    account: t.adminToken,
    // A column hidden and a row condition JavaScript tells from the image.
    role: (await roleKey(w, [{ table: table.key, actions: ['read'], where: [{ i: 'price', w: 'gte', v: 10 }], fields: { read: ['title', 'name', 'price', 'handle'] } }])).key,
    // A condition on a system timestamp, which a select of the row cannot tell in JavaScript.
    recent: (await roleKey(w, [{ table: table.key, actions: ['read'], where: [{ i: 'updatedAt', w: 'gt', v: '2000-01-01T00:00:00.000Z' }], statuses: ['DRAFT', 'PUBLISHED'] }])).key,
  };
});
afterAll(async () => {
  await other?.close(1000);
  await t?.close();
});

const RUNS = Math.max(3, Math.min(Number(process.env.STRESS_RUNS ?? 3), 40));
const SHAPES = ['', '?locale=fr', '?fields=title,version,hasDraft', '?fields=data.*,publishedAt&locale=en', '?version=draft'];

type Op =
  | { kind: 'create'; price: number; status: 'DRAFT' | 'PUBLISHED' | 'SCHEDULED' }
  | { kind: 'update'; row: number; price: number; title: string }
  | { kind: 'status'; row: number; status: 'DRAFT' | 'PUBLISHED' | 'ARCHIVED' }
  | { kind: 'draft'; row: number; title: string }
  | { kind: 'delete'; row: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), price: fc.integer({ min: 0, max: 20 }), status: fc.constantFrom('DRAFT' as const, 'PUBLISHED' as const, 'SCHEDULED' as const) }),
  fc.record({ kind: fc.constant('update' as const), row: fc.nat(), price: fc.integer({ min: 0, max: 20 }), title: fc.constantFrom('a', 'b', 'ü') }),
  fc.record({ kind: fc.constant('status' as const), row: fc.nat(), status: fc.constantFrom('DRAFT' as const, 'PUBLISHED' as const, 'ARCHIVED' as const) }),
  fc.record({ kind: fc.constant('draft' as const), row: fc.nat(), title: fc.constantFrom('d1', 'd2') }),
  fc.record({ kind: fc.constant('delete' as const), row: fc.nat() }),
);

let slugs = 0;
type Call = TestApi['call'];

async function apply(op: Op, rows: { id: string; slug: string }[], call: Call): Promise<void> {
  const path = (i: number) => contentsPath(w, table.id, rows[i % rows.length].id);
  if (op.kind === 'create' || rows.length === 0) {
    const slug = `row-${++slugs}`;
    const status = op.kind === 'create' ? op.status : 'PUBLISHED';
    const price = op.kind === 'create' ? op.price : 5;
    const publishAt = status === 'SCHEDULED' ? { publishAt: new Date(Date.now() + 3_600_000).toISOString() } : {};
    const res = await call('POST', contentsPath(w, table.id), {
      token: w.writeKey,
      body: { data: { title: `t${slugs}`, name: { en: `n${slugs}`, fr: `fr${slugs}` }, price, secret: 's', handle: slug }, status, ...publishAt },
    });
    rows.push({ id: expectStatus(res, 201).id, slug });
    return;
  }
  // Writes a row's state refuses (a transition, a draft of an unpublished row, a deleted row) answer 4xx and change nothing.
  const body =
    op.kind === 'update'
      ? { data: { price: op.price, title: op.title, name: { fr: `${op.title}-fr` } } }
      : op.kind === 'status'
        ? { status: op.status }
        : op.kind === 'draft'
          ? { data: { title: op.title }, draft: true }
          : null;
  const res = body ? await call('PUT', path(op.row), { token: w.writeKey, body }) : await call('DELETE', path(op.row), { token: w.writeKey });
  expect(res.status, res.text).toBeLessThan(500);
}

const answer = (res: CallResult) => ({ status: res.status, body: res.status === 200 ? res.json : res.json?.error?.code, etag: res.headers.get('etag') });

async function compareAll(rows: { id: string; slug: string }[]): Promise<void> {
  for (const row of rows) {
    for (const [who, token] of Object.entries(callers)) {
      for (const shape of SHAPES) {
        const byId = answer(await getRow(w, table.id, row.id, token, shape));
        const bySlug = answer(await getRow(w, table.id, row.slug, token, shape));
        expect(byId, `${who} ${shape} ${row.id}`).toEqual(bySlug);
      }
    }
  }
}

describe('fields=data.*', () => {
  it('answers id and every column the caller reads, on lists and reads', async () => {
    const row = await createRow(w, table.id, { title: 'lean', name: { en: 'e', fr: 'f' }, price: 15, secret: 'hidden', handle: `lean-${++slugs}` });
    const filter = JSON.stringify([{ i: 'id', w: 'eq', v: row.id }]);
    const listed = await t.call('GET', `${contentsPath(w, table.id)}?fields=data.*&filter=${encodeURIComponent(filter)}`, { token: w.writeKey });
    expect(expectStatus(listed, 200).list).toEqual([{ id: row.id, data: { title: 'lean', name: { en: 'e', fr: 'f' }, price: 15, secret: 'hidden', handle: row.slug } }]);
    expect(expectStatus(await getRow(w, table.id, row.id, callers.role, '?fields=data.*&locale=fr'), 200)).toEqual({ id: row.id, data: { title: 'lean', name: 'f', price: 15, handle: row.slug } });
  });
});

describe('reads by id from row images', () => {
  it('answer as a select of the row does, after random writes through this process and another', async () => {
    const second = clientFor(other.url, t.adminToken);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(opArb, fc.boolean()), { minLength: 6, maxLength: 14 }), async (ops) => {
        const rows: { id: string; slug: string }[] = [];
        for (const [op, elsewhere] of ops) {
          await apply(op, rows, elsewhere ? second : t.call);
          // Read every row at once after each write: a stale image would answer the write's previous state.
          await compareAll(rows);
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);

  it('a warm read makes no statement of its own; a write through another process shows at once', async () => {
    const row = await createRow(w, table.id, { title: 'warm', price: 12, handle: `warm-${++slugs}` });
    const path = contentsPath(w, table.id, row.id);
    expectStatus(await t.call('GET', path, { token: w.readKey }), 200);
    const pool = t.api.deps.pool;
    const original = pool.query.bind(pool);
    const statements: string[] = [];
    pool.query = ((...args: Parameters<typeof pool.query>) => {
      const query = args[0] as string | { name?: string; text: string };
      const name = typeof query === 'string' ? query : (query.name ?? query.text);
      // The realtime feed's poll runs in the background, whatever the requests do.
      if (!name.startsWith('events.feed')) statements.push(name);
      return original(...args);
    }) as typeof pool.query;
    try {
      expect(expectStatus(await t.call('GET', path, { token: w.readKey }), 200).data.title).toBe('warm');
      // The only statement: the table's change-log read (which also gives the ETag's change
      // counters), which concurrent reads of the table share.
      expect(statements).toEqual(['contents.changes']);
      expectStatus(await clientFor(other.url, t.adminToken)('PUT', path, { token: w.writeKey, body: { data: { title: 'changed' } } }), 200);
      const after = await t.call('GET', path, { token: w.readKey });
      expect(expectStatus(after, 200).data.title).toBe('changed');
      expect(after.headers.get('etag')).toBe(`"${row.id}:2"`);
      expectStatus(await clientFor(other.url, t.adminToken)('PUT', path, { token: w.writeKey, body: { status: 'DRAFT' } }), 200);
      expect((await t.call('GET', path, { token: w.readKey })).status).toBe(404);
    } finally {
      pool.query = original;
    }
  });

  it('a warm row follows column changes: renamed, deleted', async () => {
    const own = await createTable(w, [{ name: 'title', type: 'text' }, { name: 'note', type: 'text' }]);
    const row = await createRow(w, own.id, { title: 'x', note: 'n' });
    expect(expectStatus(await getRow(w, own.id, row.id), 200).data).toEqual({ title: 'x', note: 'n' });
    expectStatus(await t.call('PUT', columnsPath(w, own.id, own.columns.note.id), { body: { name: 'remark' } }), 200);
    expect(expectStatus(await getRow(w, own.id, row.id), 200).data).toEqual({ title: 'x', remark: 'n' });
    expect((await t.call('DELETE', columnsPath(w, own.id, own.columns.title.id))).status).toBe(204);
    expect(expectStatus(await getRow(w, own.id, row.id), 200).data).toEqual({ remark: 'n' });
  });
});
