import type pg from 'pg';
import { sqlOn } from '../../db/sql.js';
import { jsonbArray } from '../../db/jsonb-param.js';
import { mapInSlices } from '../../shared/slices.js';
import type { OutboxDb } from '../../jobs/outbox.js';
import { insertOutboxEvents, takeOutboxBatch, tryAdvisoryXactLock } from './outbox.sql.js';
import type { DomainEvent } from './vocabulary.js';

/**
 * Records events in the caller's transaction, in `event_outbox` (one cheap insert for all of
 * them); the relay (`relayOutboxBatch`) hands them to the subscribers. A change that rolls back
 * leaves no event; a committed one is delivered even if this process dies right after.
 */
export async function emitEvents(db: OutboxDb, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  // Serialized a slice at a time: a release's 2,000 events in one go held the event loop (shared/slices.ts).
  const query = insertOutboxEvents(jsonbArray(await mapInSlices(events, (e) => JSON.stringify(e))));
  await db.executeSql(query.text, query.values);
}

/**
 * A subscriber of the relay: takes a batch of events, in sequence order, in the relay's
 * transaction on `client`. What it writes commits with the events' removal from the outbox, so a
 * subscriber that fails or dies sees the batch again; it must be safe to run twice.
 */
export type RelaySubscriber = (client: pg.PoolClient, events: DomainEvent[]) => Promise<void>;

/** Advisory lock key of the relay: one relay at a time, across worker processes. */
const RELAY_LOCK = 'tabula:outbox-relay';

/**
 * One step of the outbox relay, in the caller's transaction on `client`: takes the relay lock
 * (or answers `null` when another relay holds it), removes up to `batch` events from
 * `event_outbox` in `seq` order and hands them to each subscriber in turn. Answers how many
 * events it moved.
 */
export async function relayOutboxBatch(client: pg.PoolClient, batch: number, subscribers: readonly RelaySubscriber[]): Promise<number | null> {
  const sql = sqlOn(client);
  const [lock] = await sql<{ ok: boolean }>(tryAdvisoryXactLock(RELAY_LOCK));
  if (!lock.ok) return null;
  const rows = await sql<{ seq: string; payload: DomainEvent }>(takeOutboxBatch(batch));
  if (rows.length > 0) {
    const events = rows.map(({ seq, payload }) => ({ ...payload, sequence: Number(seq) })).sort((a, b) => a.sequence - b.sequence);
    for (const subscriber of subscribers) await subscriber(client, events);
  }
  return rows.length;
}
