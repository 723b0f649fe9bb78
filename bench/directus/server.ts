/**
 * A Directus 11 database on the bench's PostgreSQL server, its `products` collection holding the
 * bench table's rows, and Directus processes serving it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DirectusInstall } from './install.js';

export interface DirectusDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database next to the bench's (same server, same settings). */
export async function directusDatabase(benchUrl: string): Promise<DirectusDatabase> {
  const name = `directus_bench_${Date.now().toString(36)}`;
  const admin = new URL(benchUrl);
  admin.pathname = '/postgres';
  const sql = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await sql(`create database ${name}`);
  const url = new URL(benchUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => sql(`drop database if exists ${name} with (force)`).catch(() => {}) };
}

export interface DirectusProcess {
  url: string;
  child: ChildProcess;
}

/** Directus's settings for a run: its own database, a static admin token, request logs off. */
export function directusEnv(install: DirectusInstall, databaseUrl: string, token: string, workDir: string): Record<string, string> {
  const db = new URL(databaseUrl);
  return {
    DB_CLIENT: 'pg',
    DB_HOST: db.hostname,
    DB_PORT: db.port || '5432',
    DB_DATABASE: db.pathname.slice(1),
    DB_USER: decodeURIComponent(db.username),
    DB_PASSWORD: decodeURIComponent(db.password),
    SECRET: 'directus-bench-secret-not-for-production-use',
    ADMIN_EMAIL: 'bench@example.com',
    ADMIN_PASSWORD: 'bench-password',
    ADMIN_TOKEN: token,
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    // Directus logs each request at info: warn leaves request logging off, as Tabula's bench
    // leaves it on (Tabula's cost of it is measured under docs/performance.md#request-logs).
    LOG_LEVEL: 'warn',
    TELEMETRY: 'false',
    RATE_LIMITER_ENABLED: 'false',
    // On by default: it answers 503 once the event loop lags 500 ms, which under this load would
    // count quick refusals as answers. Tabula's rate limit is raised out of the way likewise.
    PRESSURE_LIMITER_ENABLED: 'false',
    WEBSOCKETS_ENABLED: 'false',
    EXTENSIONS_PATH: path.join(workDir, 'extensions'),
    STORAGE_LOCAL_ROOT: path.join(workDir, 'uploads'),
    PATH: `${path.dirname(install.node)}${path.delimiter}${process.env.PATH}`,
  };
}

/** A scratch directory for Directus's extensions and uploads folders. */
export async function directusWorkDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'directus-bench-'));
  await mkdir(path.join(dir, 'extensions'), { recursive: true });
  await mkdir(path.join(dir, 'uploads'), { recursive: true });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** `directus bootstrap`: system tables, migrations, the admin user with ADMIN_TOKEN. */
export async function bootstrapDirectus(install: DirectusInstall, env: Record<string, string>, cwd: string): Promise<void> {
  const child = spawn(install.node, [install.cli, 'bootstrap'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`directus bootstrap exited with ${code}:\n${output}`);
}

/** `directus start` on a port, resolved once /server/ping answers. */
export async function startDirectus(install: DirectusInstall, env: Record<string, string>, cwd: string, port: number): Promise<DirectusProcess> {
  const child = spawn(install.node, [install.cli, 'start'], { cwd, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`directus start exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`directus did not answer /server/ping within 120 s:\n${output}`);
    if (await fetch(`${url}/server/ping`).then((r) => r.ok, () => false)) return { url, child };
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function call(base: string, token: string, method: string, url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(base + url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Directus ${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * The bench table's columns as a Directus collection (created through Directus's API, so its
 * schema cache and field metadata are its own): uuid key, status and the two timestamps Tabula
 * rows carry, and title, category, price, qty, body and author (the referenced author's id).
 */
export async function createProducts(directus: string, token: string): Promise<void> {
  const field = (name: string, type: string, schema: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
    field: name,
    type,
    schema,
    meta: { interface: null, ...meta },
  });
  await call(directus, token, 'POST', '/collections', {
    collection: 'products',
    meta: { icon: 'inventory' },
    schema: {},
    fields: [
      field('id', 'uuid', { is_primary_key: true, has_auto_increment: false }, { special: ['uuid'], hidden: true, readonly: true }),
      field('status', 'string', { default_value: 'published', is_nullable: false }),
      field('date_created', 'timestamp', {}, { special: ['date-created'] }),
      field('date_updated', 'timestamp', {}, { special: ['date-updated'] }),
      field('title', 'string', { max_length: 200, is_nullable: false }),
      field('category', 'string', { max_length: 255 }),
      field('price', 'float'),
      field('qty', 'integer'),
      field('body', 'text'),
      field('author', 'uuid'),
    ],
  });
}

/**
 * Copies the bench table's rows (ids, values, timestamps) into `products` in batches of
 * unnest()ed arrays, then adds the indexes Q2/Q3 can use (Tabula has one per column) and vacuums.
 */
export async function copyRows(benchUrl: string, tableId: string, directusUrl: string, log: (line: string) => void): Promise<number> {
  const source = new pg.Client({ connectionString: benchUrl });
  const target = new pg.Client({ connectionString: directusUrl });
  await source.connect();
  await target.connect();
  try {
    const { rows } = await source.query<{ id: string; title: string; category: string; price: number; qty: number; body: string; author: string; created_at: Date; updated_at: Date }>(
      `select id, data->>'title' as title, data->>'category' as category, (data->>'price')::float8 as price, (data->>'qty')::int as qty,
              data->>'body' as body, data->>'author' as author, created_at, updated_at
         from contents where table_id = $1 and status = 'PUBLISHED'`,
      [tableId],
    );
    const batch = 20_000;
    for (let start = 0; start < rows.length; start += batch) {
      const slice = rows.slice(start, start + batch);
      const column = <K extends keyof (typeof rows)[number]>(key: K) => slice.map((row) => row[key]);
      await target.query(
        `insert into products (id, status, date_created, date_updated, title, category, price, qty, body, author)
         select id, 'published', created_at, updated_at, title, category, price, qty, body, author
           from unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[], $6::float8[], $7::int[], $8::text[], $9::uuid[])
                as t(id, created_at, updated_at, title, category, price, qty, body, author)`,
        [column('id'), column('created_at'), column('updated_at'), column('title'), column('category'), column('price'), column('qty'), column('body'), column('author')],
      );
      log(`directus: ${Math.min(rows.length, start + batch)} of ${rows.length} rows copied`);
    }
    await target.query('create index products_date_created on products (date_created)');
    await target.query('create index products_category_price on products (category, price)');
    await target.query('create index products_price on products (price)');
    await target.query('vacuum (analyze) products');
    return rows.length;
  } finally {
    await source.end();
    await target.end();
  }
}
