/**
 * The SQL runners of src/db/sql.ts against PostgreSQL: `runSql` inside `em.transactional` runs on
 * the transaction's connection (it sees the unit of work's flushed rows, its savepoints and locks
 * hold, a rollback undoes it), and `runSqlOnPool` stays outside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOrm } from '../../src/db/orm.js';
import type { Orm } from '../../src/db/orm.js';
import { runSql, runSqlOnPool, type SqlQuery } from '../../src/db/sql.js';
import { WorkspaceSchema } from '../../src/modules/workspaces/workspace.entity.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createOrmConfig } from '../../mikro-orm.config.js';

let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await openOrm(createOrmConfig(db.url, { poolMax: 4 }), { migrate: false });
});

afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

const q = (text: string, ...values: unknown[]): SqlQuery => ({ text, values });
const named = (name: string) => q('select count(*)::int as n from workspace where name = $1', name);

describe('runSql and runSqlOnPool', () => {
  it('runSql joins the transaction; runSqlOnPool does not', async () => {
    const em = orm.em.fork();
    await em.transactional(async (tx) => {
      const [{ pid }] = await runSql<{ pid: number }>(tx, q('select pg_backend_pid() as pid'));
      const [{ xid }] = await runSql<{ xid: string }>(tx, q('select pg_current_xact_id()::text as xid'));
      expect((await runSql<{ xid: string }>(tx, q('select pg_current_xact_id()::text as xid')))[0].xid).toBe(xid);
      tx.create(WorkspaceSchema, { name: 'joined' });
      await tx.flush();
      expect(await runSql(tx, named('joined'))).toEqual([{ n: 1 }]);
      const [outside] = await runSqlOnPool<{ pid: number; n: number }>(
        tx,
        q('select pg_backend_pid() as pid, (select count(*)::int from workspace where name = $1) as n', 'joined'),
      );
      expect(outside.pid).not.toBe(pid);
      expect(outside.n).toBe(0);
    });
    expect(await runSqlOnPool(orm.em, named('joined'))).toEqual([{ n: 1 }]);
  });

  it('savepoints set through runSql hold within the transaction', async () => {
    await orm.em.fork().transactional(async (tx) => {
      await runSql(tx, q(`insert into workspace (id, name, created_at, updated_at) values (gen_random_uuid(), 'kept', now(), now())`));
      await runSql(tx, q('savepoint s'));
      await runSql(tx, q(`insert into workspace (id, name, created_at, updated_at) values (gen_random_uuid(), 'undone', now(), now())`));
      await runSql(tx, q('rollback to savepoint s'));
    });
    expect(await runSqlOnPool(orm.em, named('kept'))).toEqual([{ n: 1 }]);
    expect(await runSqlOnPool(orm.em, named('undone'))).toEqual([{ n: 0 }]);
  });

  it('a failed transaction undoes what runSql wrote in it', async () => {
    const failed = orm.em.fork().transactional(async (tx) => {
      await runSql(tx, q(`insert into workspace (id, name, created_at, updated_at) values (gen_random_uuid(), 'lost', now(), now())`));
      throw new Error('abort');
    });
    await expect(failed).rejects.toThrow('abort');
    expect(await runSqlOnPool(orm.em, named('lost'))).toEqual([{ n: 0 }]);
  });

  it('a row locked with runSql stays locked until the transaction ends', async () => {
    const [{ id }] = await runSqlOnPool<{ id: string }>(
      orm.em,
      q(`insert into workspace (id, name, created_at, updated_at) values (gen_random_uuid(), 'locked', now(), now()) returning id`),
    );
    await orm.em.fork().transactional(async (tx) => {
      await runSql(tx, q('select id from workspace where id = $1 for update', id));
      const probe = await runSqlOnPool(orm.em, q('select id from workspace where id = $1 for update skip locked', id));
      expect(probe).toEqual([]);
    });
    expect(await runSqlOnPool(orm.em, q('select id from workspace where id = $1 for update skip locked', id))).toHaveLength(1);
  });
});
