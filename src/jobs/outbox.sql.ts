import type { SqlQuery } from '../db/sql.js';

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
 * Appends events (ids and JSON payloads) to the outbox in the order given: `seq` is drawn row by
 * row as the insert consumes them, so the events of one change keep their order
 * (contents.created before contents.published).
 */
export const insertOutboxEvents = (ids: string[], payloads: string[]): SqlQuery => ({
  text: `insert into event_outbox (id, payload)
  select id, payload from unnest($1::uuid[], $2::jsonb[]) with ordinality as e(id, payload, n) order by n`,
  values: [ids, payloads],
});

/** The channel the relay notifies when it has appended events to the realtime feed (docs/realtime.md#how-it-works). */
export const EVENT_FEED_CHANNEL = 'tabula_events';

/**
 * Appends relayed events to the realtime feed in the order given (their commit order) and
 * notifies every listening API process once, at commit.
 */
export const appendToEventFeed = (ids: string[], projectIds: string[], payloads: string[]): SqlQuery => ({
  text: `with appended as (
           insert into event_feed (id, project_id, payload)
           select id, project_id, payload from unnest($1::uuid[], $2::uuid[], $3::jsonb[]) with ordinality as e(id, project_id, payload, n) order by n
           returning position
         )
         select pg_notify('${EVENT_FEED_CHANNEL}', max(position)::text) from appended`,
  values: [ids, projectIds, payloads],
});
