import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { relayOutboxBatch } from '../../src/modules/webhooks/webhook.outbox.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** Events moved per transaction: one fan-out (a few statements) carries them all. */
const BATCH = 500;
/** How long an empty outbox is left alone: the most an event waits before it is queued. */
const IDLE_MS = 50;

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
      const moved = await relayOutboxBatch(boss, client, BATCH);
      if (moved === null) {
        await client.query('rollback');
        return { full: false };
      }
      await client.query('commit');
      return { full: moved === BATCH };
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  return startLoop(moveBatch, IDLE_MS, logger);
}
