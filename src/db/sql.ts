import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/** A statement with `$1..$n` placeholders, as the query compiler builds them. */
export interface SqlQuery {
  text: string;
  values: unknown[];
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
