import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { outboxOfClient, type DomainEvent } from '../../src/jobs/outbox.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';
import { fanOut } from './webhook-fanout.js';

/** Events moved per transaction: one fan-out (a few statements) carries them all. */
const BATCH = 500;
/** How long an empty outbox is left alone: the most an event waits before it is queued. */
const IDLE_MS = 50;
/** Advisory lock key of the relay: one relay at a time, across worker processes. */
const RELAY_LOCK = 'tabula:outbox-relay';

/**
 * Moves committed events from `event_outbox` to the webhooks that subscribe to them: delete a
 * batch, in `seq` order, and fan it out, in one transaction, so an event is queued exactly once
 * and none is lost if a relay dies half-way (the transaction rolls back and the rows stay).
 *
 * One relay works at a time (an advisory lock; the others idle): the events of a row must reach
 * the fan-out in sequence order, which two relays with interleaved batches could not promise.
 * Per row, `seq` order is commit order, and an event is never visible before an earlier event of
 * its row (which committed first), so a batch never skips one.
 */
export function startOutboxRelay(boss: PgBoss, pool: pg.Pool, logger: Logger): { stop(): Promise<void> } {
  const moveBatch = async () => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows: locked } = await client.query<{ ok: boolean }>('select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as ok', [RELAY_LOCK]);
      if (!locked[0].ok) {
        await client.query('rollback');
        return { full: false };
      }
      const { rows } = await client.query<{ seq: string; payload: DomainEvent }>(
        `delete from event_outbox where seq in (select seq from event_outbox order by seq limit $1)
         returning seq, payload`,
        [BATCH],
      );
      if (rows.length > 0) {
        const events = rows.map(({ seq, payload }) => ({ ...payload, sequence: Number(seq) })).sort((a, b) => a.sequence - b.sequence);
        await fanOut(boss, outboxOfClient(client), events);
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
