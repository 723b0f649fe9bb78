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
