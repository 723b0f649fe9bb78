/** Benchmark fixtures: a database, the API and the bare handler as child processes, and N rows. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { generateSecret, ACCOUNT_TOKEN_PREFIX } from '../src/shared/secrets.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { createProgress } from '../src/shared/progress.js';
import { nodeFlagsOf } from '../src/node-flags.js';

export const root = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** DATABASE_URL's server with a fresh database, or an embedded server in a temp directory. */
export async function benchDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  let embedded: EmbeddedDatabase | undefined;
  let tmp: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'tabula-bench-'));
    embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
    serverUrl = embedded.url;
  }
  const name = `tabula_bench_${Date.now().toString(36)}`;
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    stop: async () => {
      const c = new pg.Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await c.end();
      await embedded?.stop();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** Starts `tsx <script>` with env (the API with the Node.js options it runs with in production), waits until it answers (or prints `ready`). */
export async function startChild(script: string, env: Record<string, string>, readyUrl?: string): Promise<ChildProcess> {
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [...nodeFlagsOf(script), path.join(root, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.resume();
  if (!readyUrl) return child;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${script} did not start`);
    if (await fetch(readyUrl).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts bench/logging-pair.ts (an API with request logging on and one off, in one process). */
export async function startLoggingPair(env: Record<string, string>): Promise<{ child: ChildProcess; urls: { on: string; off: string } }> {
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'bench/logging-pair.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`bench/logging-pair.ts exited with ${code}`))));
  const urls = (async () => {
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line.startsWith('{"on"')) return JSON.parse(line) as { on: string; off: string };
    }
    throw new Error('bench/logging-pair.ts printed no URLs');
  })();
  try {
    return { child, urls: await Promise.race([urls, exited]) };
  } finally {
    exited.catch(() => {});
    child.stdout!.resume();
  }
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export const adminToken = generateSecret(ACCOUNT_TOKEN_PREFIX);

/** The environment of a benchmarked API process on `databaseUrl`: production mode, rate limits out of reach. */
export const benchApiEnv = (databaseUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  HOST: '127.0.0.1',
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  ADMIN_EMAIL: 'bench@example.com',
  ADMIN_TOKEN: adminToken,
  RATE_LIMIT_PER_SECOND: '10000000',
  RATE_LIMIT_BURST: '10000000',
});

/** The API process's memory in bytes, from its own Prometheus endpoint (`/metrics`). */
export async function apiMemory(api: string): Promise<{ rss: number; heapUsed: number; heapTotal: number }> {
  const text = await (await fetch(`${api}/metrics`)).text();
  const value = (name: string) => {
    const match = new RegExp(`^${name} (\\d+)`, 'm').exec(text);
    if (!match) throw new Error(`no ${name} in /metrics`);
    return Number(match[1]);
  };
  return {
    rss: value('tabula_process_resident_memory_bytes'),
    heapUsed: value('tabula_nodejs_heap_size_used_bytes'),
    heapTotal: value('tabula_nodejs_heap_size_total_bytes'),
  };
}

export interface Fixture {
  projectId: string;
  tableId: string;
  writeKey: string;
  ids: string[];
  /** `authors` (AUTHORS rows, `name` = `Author <n>`): every article's `author` references one. */
  authorsTableId: string;
}

/** Authors the articles reference (docs/performance.md#relations-and-search); article i references author i % AUTHORS. */
export const AUTHORS = 1000;
/** Article i's body holds the word `topic<i % TOPICS, two digits>`: each word is in 1 % of the rows. */
export const TOPICS = 100;

async function call(base: string, token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json as Record<string, unknown> & { id: string };
}

/**
 * The schema through the API (so indexes are the product's own), then `rows` rows through
 * bulk SQL (seeding a million rows through HTTP would take longer than the benchmark).
 */
export async function seed(api: string, databaseUrl: string, rows: number, progress = createProgress('[bench] rows inserted', rows)): Promise<Fixture> {
  const ws = await call(api, adminToken, 'POST', '/v1/workspaces', { name: 'Bench' });
  const project = await call(api, adminToken, 'POST', `/v1/workspaces/${ws.id}/projects`, { name: 'Bench' });
  const key = await call(api, adminToken, 'POST', `/v1/${project.id}/api-keys`, { name: 'bench', permission: 'read_write' });
  const table = await call(api, adminToken, 'POST', `/v1/${project.id}/tables`, { key: 'articles', name: 'Articles' });
  const columns = [
    { name: 'title', type: 'text', settings: { required: true, maxText: 200 } },
    { name: 'category', type: 'select', settings: { options: ['a', 'b', 'c', 'd', 'e'] } },
    { name: 'price', type: 'number', settings: { min: 0 } },
    { name: 'qty', type: 'integer' },
    { name: 'body', type: 'longtext' },
  ];
  for (const column of columns) await call(api, adminToken, 'POST', `/v1/${project.id}/tables/${table.id}/columns`, column);
  const authors = await call(api, adminToken, 'POST', `/v1/${project.id}/tables`, { key: 'authors', name: 'Authors' });
  await call(api, adminToken, 'POST', `/v1/${project.id}/tables/${authors.id}/columns`, { name: 'name', type: 'text' });
  await call(api, adminToken, 'POST', `/v1/${project.id}/tables/${table.id}/columns`, { name: 'author', type: 'reference', settings: { table: authors.id } });

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const authorIds = (
    await client.query<{ id: string }>(
      `insert into contents (id, project_id, table_id, status, data, created_at, updated_at, published_at)
       select gen_random_uuid(), $1, $2, 'PUBLISHED', jsonb_build_object('name', 'Author ' || i), now(), now(), now()
         from generate_series(0, $3::int - 1) as i order by i returning id`,
      [project.id, authors.id, AUTHORS],
    )
  ).rows.map((r) => r.id);
  await client.query(`insert into contents_count (table_id, status, count) values ($1, 'PUBLISHED', $2)`, [authors.id, AUTHORS]);
  // Large enough for bulk speed, small enough that progress moves every second or so.
  const batch = 20_000;
  for (let start = 0; start < rows; start += batch) {
    const end = Math.min(rows, start + batch);
    await client.query(
      `insert into contents (id, project_id, table_id, status, data, created_at, updated_at, published_at)
       select gen_random_uuid(), $1, $2, 'PUBLISHED',
              jsonb_build_object('title', 'lorem ' || i, 'category', (array['a','b','c','d','e'])[1 + i % 5],
                                 'price', (i::bigint * 7919) % 1000, 'qty', i % 100,
                                 'body', 'Some body text for row ' || i || ' topic' || lpad((i % $7::int)::text, 2, '0'),
                                 'author', ($6::text[])[1 + i % array_length($6::text[], 1)]),
              now() - make_interval(secs => ($4 - i) / 1000.0), now(), now()
         from generate_series($3::int, $5::int - 1) as i`,
      [project.id, table.id, start, rows, end, authorIds, TOPICS],
    );
    progress.update(end);
  }
  await client.query(`insert into contents_count (table_id, status, count) values ($1, 'PUBLISHED', $2)
                      on conflict (table_id, status, shard) do update set count = excluded.count`, [table.id, rows]);
  // A table in service has been vacuumed: without this, autovacuum works through the bulk load
  // (visibility map, the trigram indexes' pending lists) during the first measurements.
  await client.query('vacuum (analyze) contents');
  const ids = (await client.query<{ id: string }>('select id from contents where table_id = $1 order by random() limit 1000', [table.id])).rows.map((r) => r.id);
  await client.end();
  return { projectId: project.id, tableId: table.id, writeKey: String(key.key), ids, authorsTableId: authors.id };
}
