/**
 * `tsx bench/explain.ts [--rows N]`: seeds like the benchmark and prints EXPLAIN ANALYZE of the
 * SQL Tabula compiles for each benchmark query, to see which index each one uses.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { adminToken, benchDatabase, freePort, seed, startChild, stopChild } from './setup.js';
import { compileListQuery, parseListQuery } from '../src/modules/query/index.js';
import { TableDefinitions } from '../src/modules/tables/table-definitions.js';
import { openOrm } from '../src/db/orm.js';
import { createOrmConfig } from '../mikro-orm.config.js';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const db = await benchDatabase();
const port = await freePort();
const api = await startChild('src/api.ts', {
  DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_EMAIL: 'bench@example.com', ADMIN_TOKEN: adminToken,
}, `http://127.0.0.1:${port}/healthz`);
try {
  const fixture = await seed(`http://127.0.0.1:${port}`, db.url, Number(values.rows), { update: () => {} });
  const orm = await openOrm(createOrmConfig(db.url), { migrate: false });
  const table = (await new TableDefinitions(orm).get(fixture.projectId, fixture.tableId))!;
  await orm.close(true);
  const project = { locales: ['en'], defaultLocale: 'en' };
  const queries: Record<string, object> = {
    Q2: {},
    Q3: { filter: JSON.stringify([{ i: 'category', w: 'eq', v: 'c' }, { i: 'price', w: 'between', v: [100, 500] }]), sort: JSON.stringify([{ i: 'price', o: 'asc' }]), page: 3 },
    Q4: { filter: JSON.stringify([{ i: 'title', w: 'contains', v: 'lorem 12' }]) },
    Q5: { size: 1000 },
    // String columns: sorted by their 256-character prefix, eq through the same index.
    'title-sort': { sort: JSON.stringify([{ i: 'title', o: 'asc' }]), withCount: false },
    'title-eq': { filter: JSON.stringify([{ i: 'title', w: 'eq', v: 'lorem 12' }]) },
  };
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  if (process.env.SETTINGS) await client.query(process.env.SETTINGS);
  for (const [name, raw] of Object.entries(queries)) {
    const query = parseListQuery({ page: 1, size: 20, withCount: true, ...raw }, table, project);
    const compiled = compileListQuery(query, { tableId: fixture.tableId });
    for (const [kind, sql] of Object.entries({ select: compiled.select, count: compiled.count })) {
      if (!sql) continue;
      const plan = await client.query(`explain (analyze, buffers off) ${sql.text}`, sql.values);
      console.log(`--- ${name} ${kind}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
  }
  // The bare handler's Q4 statement, for comparison.
  const bare = await client.query(
    `explain (analyze, buffers off) select id, status, slug, data, created_at, updated_at, published_at, publish_at from contents
      where table_id = $1 and (data->>'title') ilike $2 order by created_at desc, id desc limit 20 offset 0`,
    [fixture.tableId, '%lorem 12%'],
  );
  console.log(`--- bare Q4 select\n${bare.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  await client.end();
} finally {
  await stopChild(api);
  await db.stop();
}
