import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, it, expect } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('starts, persists data across a restart on the same directory, and stops', { timeout: 60_000 }, async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'tabula-embedded-'));
    const dataDir = path.join(root, 'pg');
    let db: EmbeddedDatabase | undefined;
    try {
      db = await startEmbeddedPostgres({ dataDir });
      expect(db.url).toMatch(/^postgres:\/\/postgres:postgres@127\.0\.0\.1:\d+\/tabula$/);
      expect(await query(db.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      await query(db.url, "create table kept (note text); insert into kept values ('survives a restart')");
      await db.stop();
      await db.stop(); // idempotent

      db = await startEmbeddedPostgres({ dataDir });
      expect(await query(db.url, 'select note from kept')).toEqual([{ note: 'survives a restart' }]);
      await db.stop();
    } finally {
      await db?.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});
