import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm.js';
import { createDatabaseAt } from '../helpers/database.js';

/*
 * The search migration gives tables that existed before it the GIN indexes of their search
 * document (one per locale when a searchable column is localized), and none to a table without
 * searchable columns.
 */
let db: Awaited<ReturnType<typeof createDatabaseAt>>;
let orm: Orm;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createDatabaseAt('Migration20261125010000_contents_changes');
  ({ orm, pool } = db);
});
afterAll(() => db?.drop());

const searchIndexes = async (table: string) =>
  (await pool.query<{ indexdef: string }>(`select indexdef from pg_indexes where indexname like $1`, [`s\\_${table.replace(/-/g, '')}\\_%`])).rows.map((r) => r.indexdef);

describe('migration to full-text search', () => {
  it('indexes the search document of every existing table', async () => {
    const [workspace, project, posts, numbers] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const now = new Date();
    await pool.query(`insert into workspace (id, name, created_at, updated_at) values ($1, 'w', $2, $2)`, [workspace, now]);
    await pool.query(
      `insert into project (id, workspace_id, name, locales, default_locale, created_at, updated_at) values ($1, $2, 'p', '{en,fr}', 'en', $3, $3)`,
      [project, workspace, now],
    );
    for (const [id, key] of [[posts, 'posts'], [numbers, 'numbers']]) {
      await pool.query(`insert into content_table (id, project_id, key, name, created_at, updated_at) values ($1, $2, $3, $3, $4, $4)`, [id, project, key, now]);
    }
    const column = (table: string, name: string, type: string, settings: object, position: number) =>
      pool.query(
        `insert into content_column (id, table_id, name, type, settings, position, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $7)`,
        [randomUUID(), table, name, type, settings, position, now],
      );
    await column(posts, 'title', 'text', { localized: true }, 1);
    await column(posts, 'body', 'longtext', {}, 2);
    await column(numbers, 'n', 'integer', {}, 1);
    const reference = randomUUID();
    await pool.query(
      `insert into content_column (id, table_id, name, type, settings, position, created_at, updated_at) values ($1, $2, 'post', 'reference', $3, 2, $4, $4)`,
      [reference, numbers, { table: posts }, now],
    );
    await pool.query(
      `insert into contents (id, project_id, table_id, status, data, created_at, updated_at) values ($1, $2, $3, 'PUBLISHED', $4, now(), now())`,
      [randomUUID(), project, posts, { title: { en: 'North Sea ferry', fr: 'Le ferry' }, body: 'x'.repeat(300_000) }],
    );

    await orm.migrator.up();

    const indexes = await searchIndexes(posts);
    expect(indexes).toHaveLength(3);
    for (const definition of indexes) expect(definition).toMatch(/USING gin \(to_tsvector\('simple'::regconfig/);
    // Every locale of the localized title in the document of all locales.
    expect(indexes.filter((definition) => definition.includes('contents_search_text'))).toHaveLength(1);
    // A filter through a reference column has the statistics the planner needs.
    const statistics = await pool.query(`select 1 from pg_statistic_ext where stxname = $1`, [`c_${reference.replace(/-/g, '')}_x`]);
    expect(statistics.rowCount).toBe(1);
    expect(await searchIndexes(numbers)).toEqual([]);
    const found = await pool.query(
      `select count(*)::int as n from contents where table_id = $1
          and to_tsvector('simple', coalesce(contents_search_text(data->'title'), '')) @@ websearch_to_tsquery('simple', 'le ferry')`,
      [posts],
    );
    expect(found.rows[0].n).toBe(1);
  });
});
