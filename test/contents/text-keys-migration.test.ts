import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.js';
import { createDatabaseAt } from '../helpers/database.js';

/*
 * The text-keys migration rebuilds the sort and unique indexes of existing string columns
 * (plain and localized) with the prefix and md5 keys, under the same names, and leaves the
 * other columns' indexes alone. Afterwards a long value fits where it failed before.
 */
let db: Awaited<ReturnType<typeof createDatabaseAt>>;
let orm: Orm;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createDatabaseAt('Migration20261122110000_log_segments');
  ({ orm, pool } = db);
});
afterAll(() => db?.drop());

const hex = (id: string) => id.replace(/-/g, '');
const indexDefinition = async (index: string) =>
  (await pool.query<{ indexdef: string }>(`select indexdef from pg_indexes where indexname = $1`, [index])).rows[0]?.indexdef;

describe('migration to text keys', () => {
  it('rebuilds string columns’ sort and unique indexes; a long value then fits', async () => {
    const [workspace, project, table, title, body, price] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const now = new Date();
    await pool.query(`insert into workspace (id, name, created_at, updated_at) values ($1, 'w', $2, $2)`, [workspace, now]);
    await pool.query(
      `insert into project (id, workspace_id, name, locales, default_locale, created_at, updated_at) values ($1, $2, 'p', '{en,pt-BR}', 'en', $3, $3)`,
      [project, workspace, now],
    );
    await pool.query(`insert into content_table (id, project_id, key, name, created_at, updated_at) values ($1, $2, 'posts', 'Posts', $3, $3)`, [table, project, now]);
    const column = (id: string, columnName: string, type: string, settings: object, position: number) =>
      pool.query(
        `insert into content_column (id, table_id, name, type, settings, position, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $7)`,
        [id, table, columnName, type, settings, position, now],
      );
    await column(title, 'title', 'text', { unique: true }, 1);
    await column(body, 'body', 'longtext', { localized: true, unique: true }, 2);
    await column(price, 'price', 'number', {}, 3);
    // The indexes as the column DDL made them before.
    const where = `where table_id = '${table}'`;
    const price_expr = `(case when jsonb_typeof(data->'price') = 'number' then (data->>'price')::float8 end)`;
    await pool.query(`
      create index c_${hex(title)}_s on contents ((data->>'title'), id) ${where};
      create unique index c_${hex(title)}_u on contents ((data->>'title')) ${where};
      create index c_${hex(body)}_s_en on contents ((data->'body'->>'en'), id) ${where};
      create unique index c_${hex(body)}_u_en on contents ((data->'body'->>'en')) ${where};
      create index c_${hex(body)}_s_pt_br on contents ((data->'body'->>'pt-BR'), id) ${where};
      create unique index c_${hex(body)}_u_pt_br on contents ((data->'body'->>'pt-BR')) ${where};
      create index c_${hex(price)}_s on contents (${price_expr}, id) ${where};
    `);
    const insert = (data: object) =>
      pool.query(
        `insert into contents (id, project_id, table_id, status, data, created_at, updated_at) values ($1, $2, $3, 'PUBLISHED', $4, now(), now())`,
        [randomUUID(), project, table, data],
      );
    const long = randomBytes(6000).toString('base64');
    await expect(insert({ title: long })).rejects.toThrow(/index row/);
    const priceBefore = await indexDefinition(`c_${hex(price)}_s`);

    await orm.migrator.up();

    expect(await indexDefinition(`c_${hex(title)}_s`)).toContain(`"left"((data ->> 'title'::text), 256), id)`);
    expect(await indexDefinition(`c_${hex(title)}_u`)).toMatch(/CREATE UNIQUE INDEX .* \(md5\(\(data ->> 'title'::text\)\)\)/);
    expect(await indexDefinition(`c_${hex(body)}_s_pt_br`)).toContain(`"left"(((data -> 'body'::text) ->> 'pt-BR'::text), 256), id)`);
    expect(await indexDefinition(`c_${hex(body)}_u_en`)).toContain(`md5(((data -> 'body'::text) ->> 'en'::text))`);
    expect(await indexDefinition(`c_${hex(price)}_s`)).toBe(priceBefore);
    await insert({ title: long, body: { en: long, 'pt-BR': long } });
    await expect(insert({ title: long })).rejects.toThrow(/duplicate key/);
  });
});
