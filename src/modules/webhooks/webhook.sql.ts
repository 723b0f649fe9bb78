import type { SqlQuery } from '../../db/sql.js';

/** Active webhooks of these projects, in the shape `matchSubscriptions` takes. */
export const activeSubscriptions = (projectIds: string[]): SqlQuery => ({
  text: `select id, project_id as "projectId", events, table_ids::text[] as "tableIds"
           from webhook where project_id = any($1::uuid[]) and active`,
  values: [projectIds],
});

/**
 * Marks the pending tail of each (webhook, subject) chain as having a successor; returns the
 * chains it marked. Only a tail still pending when the mark is written counts.
 */
export const markChainTails = (webhookIds: string[], subjectIds: string[]): SqlQuery => ({
  text: `update webhook_event e set has_successor = true
           from unnest($1::uuid[], $2::uuid[]) as k(webhook_id, subject_id)
          where e.webhook_id = k.webhook_id and e.subject_id = k.subject_id and e.state = 'pending' and not e.has_successor
         returning e.webhook_id, e.subject_id`,
  values: [webhookIds, subjectIds],
});

/** One queued event per (event, webhook), all in one statement; a repeat is a no-op. */
export const insertWebhookEvents = (columns: {
  webhookIds: string[];
  eventIds: string[];
  types: string[];
  bodies: string[];
  sequences: (number | null)[];
  subjectIds: (string | null)[];
  hasSuccessor: boolean[];
}): SqlQuery => ({
  text: `insert into webhook_event (webhook_id, event_id, type, body, sequence, subject_id, has_successor)
         select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::uuid[], $7::boolean[])
         on conflict do nothing`,
  values: [columns.webhookIds, columns.eventIds, columns.types, columns.bodies, columns.sequences, columns.subjectIds, columns.hasSuccessor],
});

/** A batch of settled events older than `cutoff` (their attempts go with them, foreign key). */
export const expiredEventsBatch = (cutoff: Date, batch: number): SqlQuery => ({
  text: `delete from webhook_event where ctid in (
           select ctid from webhook_event where created_at < $1 and state <> 'pending' limit $2
         ) returning event_id`,
  values: [cutoff, batch],
});

/** The delivery targets of (webhook, event) pairs: the event with its webhook's URL and secrets. */
export const deliveryTargets = (webhookIds: string[], eventIds: string[]): SqlQuery => ({
  text: `select w.id as webhook_id, w.project_id, w.url, w.active, w.secret, w.previous_secret, w.previous_secret_until,
            w.consecutive_failures, e.event_id, e.type, e.body, e.state, e.attempts, e.next_attempt,
            e.subject_id, e.has_successor
       from unnest($1::uuid[], $2::uuid[]) as k(webhook_id, event_id)
       join webhook_event e on e.webhook_id = k.webhook_id and e.event_id = k.event_id
       join webhook w on w.id = e.webhook_id`,
  values: [webhookIds, eventIds],
});

export const deactivateWebhook = (webhookId: string, reason: string | null): SqlQuery => ({
  text: `update webhook set active = false, disabled_reason = $2, updated_at = now() where id = $1 and active`,
  values: [webhookId, reason],
});

export const cancelPending = (webhookId: string): SqlQuery => ({
  text: `update webhook_event set state = 'cancelled', updated_at = now() where webhook_id = $1 and state = 'pending'`,
  values: [webhookId],
});

/** One recorded attempt, as the delivery worker and a manual retry write it. */
export interface AttemptRecord {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  type: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  createdAt: Date;
}

/**
 * Counts an attempt on its event and inserts its delivery row, in one statement: the event takes
 * `newState` when given and the attempt is in charge (`autoAttempt` null = manual, always in
 * charge). Returns the delivery row with the event's state and `has_successor` after the update.
 */
export const recordAttemptOnly = (a: AttemptRecord, autoAttempt: number | null, newState: string | null): SqlQuery => ({
  text: `with event as (
       update webhook_event
          set attempts = attempts + 1,
              state = case
                when $10::text is null then state
                when $5::int is null or (state = 'pending' and next_attempt = $5::int) then $10::text
                else state end,
              updated_at = now()
        where webhook_id = $1 and event_id = $2
       returning attempts, state, has_successor
     ), delivery as (
       insert into webhook_delivery (id, webhook_id, event_id, type, attempt, status_code, duration_ms, error, created_at)
       select $3, $1, $2, $4, event.attempts, $6, $7, $8, $9 from event
       returning id, event_id, type, attempt, status_code, duration_ms, error, created_at
     )
     select delivery.*, event.state, event.has_successor from delivery, event`,
  values: [a.webhookId, a.eventId, a.deliveryId, a.type, autoAttempt, a.statusCode, a.durationMs, a.error, a.createdAt, newState],
});

/** Holds the webhook row; `for no key update` leaves foreign-key checks of concurrent inserts free. */
export const lockWebhook = (webhookId: string): SqlQuery => ({
  text: 'select 1 from webhook where id = $1 for no key update',
  values: [webhookId],
});

export const lockEvent = (webhookId: string, eventId: string): SqlQuery => ({
  text: 'select state, attempts, next_attempt, has_successor from webhook_event where webhook_id = $1 and event_id = $2 for update',
  values: [webhookId, eventId],
});

export const resetFailures = (webhookId: string): SqlQuery => ({
  text: 'update webhook set consecutive_failures = 0 where id = $1 and consecutive_failures <> 0',
  values: [webhookId],
});

export const countFailure = (webhookId: string): SqlQuery => ({
  text: 'update webhook set consecutive_failures = consecutive_failures + 1 where id = $1 returning consecutive_failures',
  values: [webhookId],
});

export const updateEvent = (webhookId: string, eventId: string, attempts: number, state: string, nextAttempt: number): SqlQuery => ({
  text: 'update webhook_event set attempts = $3, state = $4, next_attempt = $5, updated_at = now() where webhook_id = $1 and event_id = $2',
  values: [webhookId, eventId, attempts, state, nextAttempt],
});

export const insertDelivery = (a: AttemptRecord, attempt: number): SqlQuery => ({
  text: `insert into webhook_delivery (id, webhook_id, event_id, type, attempt, status_code, duration_ms, error, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       returning id, event_id, type, attempt, status_code, duration_ms, error, created_at`,
  values: [a.deliveryId, a.webhookId, a.eventId, a.type, attempt, a.statusCode, a.durationMs, a.error, a.createdAt],
});

/** The oldest pending event of a (webhook, subject) chain. */
export const oldestPendingEvent = (webhookId: string, subjectId: string): SqlQuery => ({
  text: `select event_id, attempts from webhook_event
      where webhook_id = $1 and subject_id = $2 and state = 'pending'
      order by sequence limit 1`,
  values: [webhookId, subjectId],
});
