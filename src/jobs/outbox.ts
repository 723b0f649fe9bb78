import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';
import type { QueueName } from './queues.js';

/** Where pg-boss writes a job: the caller's transaction, whichever way it was opened. */
export type OutboxDb = ReturnType<typeof fromKysely>;

/** The transaction of an entity manager inside `em.transactional`. */
export const outboxOfEm = (em: EntityManager): OutboxDb => fromKysely(em.getKysely());

/** The transaction of a plain pool client between `begin` and `commit`. */
export const outboxOfClient = (client: pg.PoolClient): OutboxDb => ({
  executeSql: async (text: string, values?: unknown[]) => ({ rows: (await client.query(text, values)).rows }),
});

/**
 * Sends a job through the caller's transaction (transactional outbox): the job exists if and
 * only if the surrounding change commits.
 */
export async function enqueue(db: OutboxDb, boss: PgBoss, queue: QueueName, data: object, options: SendOptions = {}): Promise<void> {
  await boss.send(queue, data, { ...options, db });
}
