import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { outboxOfClient, type DomainEvent } from '../../src/jobs/outbox.js';
import { QUEUES } from '../../src/jobs/queues.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** Events moved per transaction: one pg-boss insert statement carries them all. */
const BATCH = 500;
/** How long an empty outbox is left alone: the most an event waits before it is queued. */
const IDLE_MS = 50;

/**
 * Moves committed events from `event_outbox` into the pg-boss `events` queue: delete a batch
 * (skipping rows another relay holds) and insert them as jobs in one transaction, so an event
 * is queued exactly once whichever relay process takes it, and none is lost if a relay dies
 * half-way (the transaction rolls back and the rows stay). Job ids are the event ids.
 */
export function startOutboxRelay(boss: PgBoss, pool: pg.Pool, logger: Logger): { stop(): Promise<void> } {
  const moveBatch = async () => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<{ payload: DomainEvent }>(
        `delete from event_outbox where id in (select id from event_outbox order by id limit $1 for update skip locked)
         returning payload`,
        [BATCH],
      );
      if (rows.length > 0) {
        const jobs = rows.map(({ payload }) => ({ id: payload.id, data: payload }));
        await boss.insert(QUEUES.events.name, jobs, { db: outboxOfClient(client) });
      }
      await client.query('commit');
      return { full: rows.length === BATCH };
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  return startLoop(moveBatch, IDLE_MS, logger);
}
