import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openOrm } from '../../src/db/orm.js';
import { createOrmConfig } from '../../mikro-orm.config.js';

export const TEMPLATE_DATABASE = 'tabula_test_template';

/** The same server URL with another database name. */
export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, fully migrated database for one test file, copied from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `tabula_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`create database ${name} template ${TEMPLATE_DATABASE}`));
  return {
    name,
    url: databaseUrlFor(inject('adminDatabaseUrl'), name),
    drop: () => withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/**
 * An empty database migrated up to `migration` (inclusive), for tests of the migrations after
 * it: its ORM (`orm.migrator.up()` applies the rest) and a small pool.
 */
export async function createDatabaseAt(migration: string) {
  const name = `tabula_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`create database ${name}`));
  const url = databaseUrlFor(inject('adminDatabaseUrl'), name);
  const orm = await openOrm(createOrmConfig(url), { migrate: false });
  await orm.migrator.up({ to: migration });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    orm,
    pool,
    async drop() {
      await pool.end();
      await orm.close();
      await withAdmin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}
