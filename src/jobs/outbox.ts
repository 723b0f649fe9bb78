import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';
import type { QueueName } from './queues.js';

/**
 * Sends a job through the entity manager's current transaction (transactional outbox): the
 * job exists if and only if the surrounding change commits. Call inside `em.transactional`.
 */
export async function enqueue(
  em: EntityManager,
  boss: PgBoss,
  queue: QueueName,
  data: object,
  options: SendOptions = {},
): Promise<void> {
  await boss.send(queue, data, { ...options, db: fromKysely(em.getKysely()) });
}
