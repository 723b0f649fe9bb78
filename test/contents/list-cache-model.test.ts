import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import { openOrm, type Orm } from '../../src/db/orm.js';
import { AppError } from '../../src/errors/app-error.js';
import { listContents } from '../../src/modules/contents/rows/list.js';
import { ListCache, detectTextOrder } from '../../src/modules/contents/list-cache/list-cache.js';
import { TableDefinitions } from '../../src/modules/tables/table-definitions.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { clientFor, startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildWorld, columnsPath, contentsPath, createTable, type Table, type World } from './fixture.js';
import { createOrmConfig } from '../../mikro-orm.config.js';
import { PUBLISHED_ONLY } from '../../src/modules/tables/table-def.js';

/*
 * Model-based check of the list cache (list-cache/): random creates, updates (values moving rows
 * into and out of filters and across pages, status changes), deletes and column changes,
 * interleaved with list reads through the API's cache, each compared with the same query run
 * with an empty cache. The second property writes through one API process and reads through
 * another right after each write's response (read-your-writes across processes).
 */
let t: TestApi;
let w: World;
let orm: Orm;
let pool: pg.Pool;
let other: RunningApi;
let textOrder: Awaited<ReturnType<typeof detectTextOrder>>;
beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  orm = await openOrm(createOrmConfig(t.db.url), { migrate: false });
  pool = createPool(t.db.url, 2, createLogger('silent'));
  textOrder = await detectTextOrder(pool);
  other = await startApi(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' }), t.db.url, createLogger('silent'));
});
afterAll(async () => {
  await other?.close(1000);
  await pool?.end();
  await orm?.close();
  await t?.close();
});

const RUNS = Math.max(4, Math.min(Number(process.env.STRESS_RUNS ?? 6), 60));

type Query = Record<string, string>;
const q = (filter: unknown[] | null, sort: unknown[] | null, extra: Query = {}): Query => ({
  ...(filter ? { filter: JSON.stringify(filter) } : {}),
  ...(sort ? { sort: JSON.stringify(sort) } : {}),
  ...extra,
});

/** Several filters and orders; some of them each write touches, most not. */
const QUERIES: Query[] = [
  q(null, null, { size: '4' }),
  q([{ i: 'category', w: 'eq', v: 'a' }], [{ i: 'price', o: 'asc' }], { size: '3', page: '2' }),
  q([{ i: 'price', w: 'between', v: [10, 60] }], [{ i: 'price', o: 'desc' }], { size: '3' }),
  q([{ i: 'tags', w: 'eq', v: 'x' }], null, { size: '5' }),
  q([{ i: 'title', w: 'contains', v: 'ab' }], [{ i: 'title', o: 'asc' }], { size: '3' }),
  q([{ i: 'name', l: 'fr', w: 'startsWith', v: 'b' }], [{ i: 'name', l: 'en', o: 'desc' }], { locale: 'fr', size: '3' }),
  q([{ i: 'status', w: 'eq', v: 'DRAFT' }], [{ i: 'updatedAt', o: 'desc' }], { size: '3' }),
  q([{ i: 'category', w: 'eq', v: 'b' }, { i: 'flag', w: 'eq', v: true }], [{ i: 'createdAt', o: 'asc' }], { op: 'or', size: '2', page: '2' }),
  q(null, [{ i: 'day', o: 'asc' }], { withCount: 'false', size: '3', fields: 'title,day' }),
  q([{ i: 'price', w: 'null', v: true }], null, { size: '3' }),
  q([{ i: 'category', w: 'in', v: ['a', 'c'] }, { i: 'title', w: 'neq', v: 'b' }], [{ i: 'category', o: 'asc' }, { i: 'price', o: 'desc' }], { size: '3' }),
  q([{ i: 'tags', w: 'nin', v: ['y'] }, { i: 'price', w: 'gte', v: 30 }], [{ i: 'title', o: 'desc' }], { size: '2', page: '3' }),
];

const COLUMNS = [
  { name: 'title', type: 'text' },
  { name: 'category', type: 'select', settings: { options: ['a', 'b', 'c'] } },
  { name: 'price', type: 'number' },
  { name: 'tags', type: 'select', settings: { options: ['x', 'y', 'z'], multiple: true } },
  { name: 'name', type: 'text', settings: { localized: true } },
  { name: 'flag', type: 'boolean' },
  { name: 'day', type: 'date' },
];

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const dataArb = fc.record(
  {
    title: maybe(fc.constantFrom('ab', 'abc', 'b', 'xyz', 'Ab', 'é', 'ab😀')),
    category: maybe(fc.constantFrom('a', 'b', 'c')),
    price: maybe(fc.constantFrom(5, 10, 20, 35, 60, 61, 90)),
    tags: maybe(fc.subarray(['x', 'y', 'z'])),
    name: maybe(fc.record({ en: maybe(fc.constantFrom('apple', 'berry')), fr: maybe(fc.constantFrom('banane', 'pomme', 'baie')) })),
    flag: maybe(fc.boolean()),
    day: maybe(fc.constantFrom('2026-01-01', '2026-02-01', '2026-03-01')),
  },
  { requiredKeys: [] },
);
const STATUS = fc.constantFrom('DRAFT', 'PUBLISHED', 'ARCHIVED');
const readArb = fc.record({ query: fc.nat(QUERIES.length - 1), reader: fc.constantFrom('read', 'write'), cursor: fc.boolean() });
const opArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), data: dataArb, status: STATUS }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('update' as const), row: fc.nat(), data: dataArb, status: fc.option(STATUS, { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), row: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('schema' as const), price: fc.constantFrom(7, 61) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), read: readArb }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
type Read = { query: number; reader: 'read' | 'write'; cursor: boolean };

/** What the API answers for a list read: status and body. */
const answer = (res: CallResult) => ({ status: res.status, body: res.json });

/** The same read with an empty cache: the database's answer now. */
async function uncached(table: Table, query: Query, publicOnly: boolean) {
  const def = (await new TableDefinitions(orm).get(w.projectId, table.id))!;
  const input = {
    projectId: w.projectId,
    tableId: table.id,
    ...query,
    page: query.page ? Number(query.page) : 1,
    size: query.size ? Number(query.size) : 20,
    withCount: query.withCount !== 'false',
  };
  try {
    const body = await listContents(
      {
        pool,
        cache: new ListCache(textOrder),
        // A read key's views: PUBLISHED rows only, here and through every reference.
        table: publicOnly ? { ...def, rows: PUBLISHED_ONLY } : def,
        project: { id: w.projectId, workspaceId: w.workspaceId, locales: ['en', 'fr'], defaultLocale: 'en' },
        drafts: !publicOnly,
        tables: async (tableId) => {
          const found = await new TableDefinitions(orm).get(w.projectId, tableId);
          return found && publicOnly ? { ...found, rows: PUBLISHED_ONLY } : found;
        },
        em: orm.em.fork(),
      },
      input,
    );
    return { status: 200, body: JSON.parse(JSON.stringify(body)) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, body: null };
  }
}

/** Compares one read through `call` (cached) with the database's answer, cursor pages too. */
async function compareRead(call: ReturnType<typeof clientFor>, table: Table, read: Read, step: string) {
  const publicOnly = read.reader === 'read';
  let query = QUERIES[read.query];
  if (read.cursor) {
    const first = await uncached(table, { ...query, page: '1' }, publicOnly);
    const cursor = first.body?.pagination?.nextCursor;
    if (!cursor) return;
    const { page: _page, ...rest } = query;
    query = { ...rest, cursor };
  }
  const cached = await call('GET', `${contentsPath(w, table.id)}?${new URLSearchParams(query)}`, { token: publicOnly ? w.readKey : w.writeKey });
  const body = answer(cached);
  const expected = await uncached(table, query, publicOnly);
  expect({ status: body.status, body: body.status === 200 ? body.body : null }, `${step}: ${JSON.stringify(query)} (${read.reader} key)`).toEqual(expected);
}

async function runOps(ops: Op[], writeThrough: ReturnType<typeof clientFor>, readThrough: ReturnType<typeof clientFor>) {
  const table = await createTable(w, COLUMNS);
  const rows: string[] = [];
  let extra = 0;
  for (const [i, op] of ops.entries()) {
    const step = `step ${i} ${JSON.stringify(op)}`;
    if (op.kind === 'create') {
      const res = await writeThrough('POST', contentsPath(w, table.id), { token: w.writeKey, body: { data: op.data, status: op.status } });
      expect(res.status, `${step}: ${res.text}`).toBe(201);
      rows.push(res.json.id);
    } else if (op.kind === 'update' && rows.length > 0) {
      const body = { data: op.data, ...(op.status ? { status: op.status } : {}) };
      const res = await writeThrough('PUT', contentsPath(w, table.id, rows[op.row % rows.length]), { token: w.writeKey, body });
      expect([200, 409], `${step}: ${res.text}`).toContain(res.status);
    } else if (op.kind === 'delete' && rows.length > 0) {
      const [id] = rows.splice(op.row % rows.length, 1);
      expect((await writeThrough('DELETE', contentsPath(w, table.id, id), { token: w.writeKey })).status).toBe(204);
    } else if (op.kind === 'schema') {
      // A column with a default fills every row (one bulk update); another process would see the
      // new schema only after its 500 ms table cache, so schema changes go through the reader.
      const res = await readThrough('POST', columnsPath(w, table.id), { body: { name: `n${++extra}`, type: 'number', settings: { defaultValue: op.price } } });
      expect(res.status, res.text).toBe(201);
    } else if (op.kind === 'read') {
      await compareRead(readThrough, table, op.read, step);
    }
    // After every step, two reads from the fixed set: their cached entries live across steps.
    await compareRead(readThrough, table, { query: i % QUERIES.length, reader: i % 2 ? 'read' : 'write', cursor: i % 3 === 0 }, step);
    await compareRead(readThrough, table, { query: (i * 7 + 3) % QUERIES.length, reader: i % 2 ? 'write' : 'read', cursor: false }, step);
  }
}

describe('list cache model', () => {
  it('cached reads equal uncached ones after every write, in one process', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 40 }), (ops) => runOps(ops, t.call, t.call)),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);

  it('writes through one process are read at once, and exactly, through another', async () => {
    const second = clientFor(other.url, t.adminToken);
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 40 }), (ops) => runOps(ops, t.call, second)),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});
