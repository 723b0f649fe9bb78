import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { BOSS_SCHEMA } from '../../src/jobs/boss.js';
import { openOrm, type Orm } from '../../src/db/orm.js';
import { uuidv7 } from '../../src/shared/ids.js';
import { databaseUrlFor } from '../helpers/database.js';
import { createOrmConfig } from '../../mikro-orm.config.js';

/*
 * The migration to ordered deliveries: events waiting in the outbox get their sequence in the
 * order they were recorded, and events still in the pg-boss `events` queue (which the relay no
 * longer feeds) go back into the outbox instead of being lost.
 */
const name = `tabula_test_${randomBytes(6).toString('hex')}`;
const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
const url = databaseUrlFor(inject('adminDatabaseUrl'), name);
let orm: Orm;
let db: pg.Client;

beforeAll(async () => {
  await admin.connect();
  await admin.query(`create database ${name}`);
  orm = await openOrm(createOrmConfig(url), { migrate: false });
  await orm.migrator.up({ to: 'Migration20261122110000_log_segments' });
  db = new pg.Client({ connectionString: url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await orm?.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

const event = (id: string) => ({ id, type: 'contents.created', projectId: uuidv7(), tableId: null, createdAt: new Date().toISOString(), data: { id: uuidv7() } });

describe('migration to ordered deliveries', () => {
  it('numbers the outbox in recorded order and moves the queued events back into it', async () => {
    const waiting = [uuidv7(), uuidv7()];
    for (const id of waiting) await db.query('insert into event_outbox (id, payload) values ($1, $2)', [id, event(id)]);
    const boss = new PgBoss({ connectionString: url, schema: BOSS_SCHEMA, supervise: false, schedule: false });
    await boss.start();
    const queued = [uuidv7(), uuidv7(), uuidv7()];
    try {
      await boss.createQueue('events');
      await boss.insert('events', queued.map((id) => ({ id, data: event(id) })));
    } finally {
      await boss.stop({ graceful: false });
    }

    await orm.migrator.up();
    const { rows } = await db.query<{ id: string; seq: string; payload: { id: string } }>('select id, seq, payload from event_outbox order by seq');
    expect(rows.slice(0, 2).map((r) => r.id)).toEqual(waiting);
    expect(new Set(rows.slice(2).map((r) => r.id))).toEqual(new Set(queued));
    for (const row of rows) expect(row.payload.id).toBe(row.id);
    expect(new Set(rows.map((r) => r.seq)).size).toBe(rows.length);
    const left = await db.query(`select count(*)::int as n from ${BOSS_SCHEMA}.job where name = 'events' and state < 'completed'`);
    expect(left.rows[0].n).toBe(0);
  });
});
