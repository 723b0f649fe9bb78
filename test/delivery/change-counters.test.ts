import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createRow, createTable, type Table, type World } from '../contents/fixture.js';

/**
 * docs/performance.md#what-a-conditional-read-costs: the change counters (`cache_version`) that
 * ETags are made of are counted up by every write, and a writer never waits for another's
 * counter row. Before, two transactions whose ids fell on the same shard and that wrote two
 * tables in opposite orders deadlocked.
 */
let t: TestApi;
let w: World;
let pool: pg.Pool;
let tables: Table[];
/** Rows of each table, two per writer so that writers never wait for each other's rows. */
const rows: string[][] = [];
const WRITERS = 6;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  pool = new pg.Pool({ connectionString: t.db.url, max: WRITERS + 2 });
  tables = [];
  for (let i = 0; i < 3; i++) {
    const table = await createTable(w, [{ name: 'n', type: 'integer' }], { defaultStatus: 'PUBLISHED' });
    tables.push(table);
    const ids: string[] = [];
    for (let r = 0; r < WRITERS; r++) ids.push((await createRow(w, table.id, { n: 0 })).id as string);
    rows.push(ids);
  }
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

/** The scopes' counters: the sum of their shard rows. */
async function counters(scopes: string[]): Promise<Record<string, number>> {
  const { rows: found } = await pool.query<{ scope: string; version: string }>(
    'select scope, sum(version)::text as version from cache_version where scope = any($1::text[]) group by scope',
    [scopes],
  );
  return Object.fromEntries(scopes.map((s) => [s, Number(found.find((f) => f.scope === s)?.version ?? 0)]));
}

const xid = async (c: pg.PoolClient) => BigInt((await c.query<{ x: string }>('select pg_current_xact_id()::text as x')).rows[0]!.x);

/** Two open transactions whose ids agree modulo 16 (the counter row both once took, so they waited for each other). */
async function sameShardPair(): Promise<[pg.PoolClient, pg.PoolClient]> {
  const a = await pool.connect();
  const b = await pool.connect();
  await a.query('begin');
  const shard = (await xid(a)) % 16n;
  for (;;) {
    await b.query('begin');
    if ((await xid(b)) % 16n === shard) return [a, b];
    await b.query('rollback');
  }
}

/** Ends whatever the clients left open (a failed statement leaves its transaction aborted) and returns them. */
async function release(...clients: pg.PoolClient[]): Promise<void> {
  for (const c of clients) {
    await c.query('rollback');
    c.release();
  }
}

const bump = (c: pg.PoolClient, id: string) => c.query(`update contents set data = jsonb_set(data, '{n}', to_jsonb((data->>'n')::int + 1)) where id = $1`, [id]);

describe('change counters under concurrent writers', () => {
  /**
   * Two transactions on one shard: `a` writes its first scope (`write(a, 0)`), `b` its second,
   * then each the other's at once; both must commit, and each scope count both writes.
   */
  async function oppositeOrders(scopes: string[], write: (client: pg.PoolClient, scope: 0 | 1, writer: 0 | 1) => Promise<unknown>) {
    const before = await counters(scopes);
    const [a, b] = await sameShardPair();
    try {
      for (const c of [a, b]) await c.query(`set local lock_timeout = '3s'`);
      await write(a, 0, 0);
      await write(b, 1, 1);
      // Each now writes the scope the other holds a counter row of.
      await Promise.all([write(a, 1, 0), write(b, 0, 1)]);
      await Promise.all([a.query('commit'), b.query('commit')]);
    } finally {
      await release(a, b);
    }
    const after = await counters(scopes);
    for (const scope of scopes) expect(after[scope]! - before[scope]!, scope).toBe(2);
  }

  it('two transactions on one shard writing two tables in opposite orders both commit, and each write is counted', async () => {
    // Each writer its own row of each table: they wait for nothing but counter rows.
    await oppositeOrders(tables.slice(0, 2).map((table) => `t:${table.id}`), (client, table, writer) => bump(client, rows[table]![writer]!));
  });

  it('the same holds for the project scopes counted by cache_touch (categories, variables, ...)', async () => {
    const scopes = [`c:${w.projectId}`, `v:${w.projectId}`];
    await oppositeOrders(scopes, (client, scope) => client.query(`select cache_touch($1::text[], '{}')`, [[scopes[scope]]]));
  });

  it('writers in random table orders all commit, and every scope counts exactly its committed and none of its rolled-back writes', async () => {
    const scopes = tables.map((table) => `t:${table.id}`);
    const before = await counters(scopes);
    const expected = Object.fromEntries(scopes.map((s) => [s, 0]));
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        const c = await pool.connect();
        try {
          for (let round = 0; round < 25; round++) {
            const order = [0, 1, 2].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 3));
            const rollback = random() < 0.2;
            await c.query('begin');
            await c.query(`set local lock_timeout = '3s'`);
            for (const table of order) await bump(c, rows[table]![writer]!);
            await c.query(rollback ? 'rollback' : 'commit');
            if (!rollback) for (const table of order) expected[scopes[table]!]!++;
          }
        } finally {
          await release(c);
        }
      }),
    );
    const after = await counters(scopes);
    for (const scope of scopes) expect(after[scope]! - before[scope]!, scope).toBe(expected[scope]);
  });
});
