import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { transaction } from '../../src/db/sql.js';
import { appendToFeed } from '../../src/modules/events/feed/feed-append.js';
import { relayOutboxBatch } from '../../src/modules/events/outbox.js';
import { fanOutToWebhooks } from '../../src/modules/webhooks/webhook.subscriber.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** Events moved per transaction: one fan-out (a few statements) carries them all. */
const BATCH = 500;
/** How long an empty outbox is left alone: the most an event waits before it is queued. */
const IDLE_MS = 50;

/**
 * Moves committed events from `event_outbox` to their subscribers (the webhooks that subscribe
 * to them, then the realtime feed): delete a batch, in `seq` order, and hand it on, in one
 * transaction, so an event is passed on exactly once and none is lost if a relay dies half-way
 * (the transaction rolls back and the rows stay).
 *
 * One relay works at a time (an advisory lock; the others idle): the events of a row must reach
 * the subscribers in sequence order, which two relays with interleaved batches could not promise.
 * Per row, `seq` order is commit order, and an event is never visible before an earlier event of
 * its row (which committed first), so a batch never skips one.
 */
export function startOutboxRelay(boss: PgBoss, pool: pg.Pool, logger: Logger): { stop(): Promise<void> } {
  const subscribers = [fanOutToWebhooks(boss), appendToFeed];
  const moveBatch = async () => {
    const moved = await transaction(pool, (_sql, client) => relayOutboxBatch(client, BATCH, subscribers));
    return { full: moved === BATCH };
  };
  return startLoop(moveBatch, IDLE_MS, logger);
}
