import type { SqlQuery } from '../../db/sql.js';

/** A transaction-scoped advisory lock on `key`, taken only if free: `ok` says whether it was. */
export const tryAdvisoryXactLock = (key: string): SqlQuery => ({
  text: 'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as ok',
  values: [key],
});

/** Removes the oldest `batch` events from the outbox and returns them. */
export const takeOutboxBatch = (batch: number): SqlQuery => ({
  text: `delete from event_outbox where seq in (select seq from event_outbox order by seq limit $1)
         returning seq, payload`,
  values: [batch],
});

/**
 * Appends events (one jsonb array of their payloads, each with its `id`) to the outbox in the
 * order given: `seq` is drawn row by row as the insert consumes them, so the events of one change
 * keep their order (contents.created before contents.published). One jsonb parameter, not a
 * `jsonb[]`: an array literal of a release's 2,000 payloads was escaped element by element on
 * the API's event loop, then parsed again by the server.
 */
export const insertOutboxEvents = (payloads: Buffer): SqlQuery => ({
  text: `insert into event_outbox (id, payload)
  select (e.payload->>'id')::uuid, e.payload from jsonb_array_elements($1::jsonb) with ordinality as e(payload, n) order by n`,
  values: [payloads],
});
