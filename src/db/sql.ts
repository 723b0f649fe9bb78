import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { noteCommitPosition, WAL_POSITION_SQL, writePositions } from './wal-position.js';

/** A statement with `$1..$n` placeholders, as the query compiler builds them. */
export interface SqlQuery {
  text: string;
  values: unknown[];
  /**
   * Prepares the statement once per connection under this name: PostgreSQL then skips parsing
   * and planning on every later run. Only for hot statements whose text never changes.
   */
  name?: string;
}

/** Savepoint statements: `name` is a constant of the caller, never input. */
export const savepoint = (action: 'savepoint' | 'release savepoint' | 'rollback to savepoint', name: string): SqlQuery => ({
  text: `${action} ${name}`,
  values: [],
});

/** Runs one statement and returns its rows: on a pool, or on a transaction's client. */
export type Sql = <T extends object>(query: SqlQuery) => Promise<T[]>;

export const sqlOn =
  (db: pg.Pool | pg.PoolClient): Sql =>
  async <T extends object>(query: SqlQuery) =>
    (await db.query<T & pg.QueryResultRow>(query)).rows;

/**
 * Runs `work` in a transaction on a plain pool client. The contents hot path uses this rather
 * than the ORM: its rows have a run-time schema, and one pooled client per transaction is the
 * cheapest way to PostgreSQL from Node.
 */
export async function transaction<T>(pool: pg.Pool, work: (sql: Sql, client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(sqlOn(client), client);
    await commit(client);
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * COMMIT; inside a write request also the WAL position after it, in the same round trip (two
 * statements of one simple query), for the request's consistency token (wal-position.ts).
 */
async function commit(client: pg.PoolClient): Promise<void> {
  if (!writePositions.getStore()) {
    await client.query('commit');
    return;
  }
  const results = (await client.query(`commit; ${WAL_POSITION_SQL}`)) as unknown as pg.QueryResult<{ lsn: string }>[];
  noteCommitPosition(results[1]?.rows[0]?.lsn);
}

/**
 * Runs a `$n`-placeholder statement through the entity manager's connection: inside
 * `em.transactional` it joins the transaction. (MikroORM's own `execute` wants `?` placeholders,
 * which clash with PostgreSQL's jsonb `?` operators.)
 */
export async function runSql<T>(em: EntityManager, query: SqlQuery): Promise<T[]> {
  const result = await em.getKysely().executeQuery<T>(CompiledQuery.raw(query.text, query.values));
  return [...result.rows];
}

/**
 * Runs a `$n`-placeholder statement on the entity manager's pool, outside any transaction the
 * caller may be in: for lookups that must neither wait for nor join the unit of work around them
 * (credentials, the project directory, readiness probes).
 */
export async function runSqlOnPool<T>(em: EntityManager, query: SqlQuery): Promise<T[]> {
  const result = await em.getConnection().getClient().executeQuery<T>(CompiledQuery.raw(query.text, query.values));
  return [...result.rows];
}

/**
 * Runs `work` with statements on one pooled connection, outside any transaction (each statement
 * commits on its own): for session settings that must hold across several statements, such as
 * a `lock_timeout` around `drop index concurrently`.
 */
export async function onOneConnection<T>(em: EntityManager, work: (run: <R>(query: SqlQuery) => Promise<R[]>) => Promise<T>): Promise<T> {
  return em
    .getConnection()
    .getClient()
    .connection()
    .execute(async (db) => work(async <R>(query: SqlQuery) => [...(await db.executeQuery<R>(CompiledQuery.raw(query.text, query.values))).rows]));
}
