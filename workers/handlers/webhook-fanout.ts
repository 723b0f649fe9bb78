import type { Db, PgBoss } from 'pg-boss';
import type { DomainEvent } from '../../src/jobs/outbox.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { chainKey, matchSubscriptions, payloadOf, planQueue, subjectOf, type Subscription } from '../../src/modules/webhooks/webhook.fanout.js';
import { deliveryJobInsert } from '../../src/modules/webhooks/webhook.jobs.js';

/**
 * Fan-out, in the outbox relay's transaction: each event (in sequence order) becomes one queued
 * event per active webhook of its project that subscribes to it (`webhook_event`, the body that
 * will be signed), and the first pending event of each chain (webhook, row) a delivery job; the
 * others wait behind it (see webhook.chain.ts). Everything commits with the removal of the events
 * from the outbox, so a fan-out that fails or dies is simply done again; job ids derive from
 * (event, webhook, attempt) on top of that, so nothing can be queued twice.
 */
export async function fanOut(boss: PgBoss, tx: Db, events: DomainEvent[]): Promise<void> {
  const projectIds = [...new Set(events.map((event) => event.projectId))];
  const { rows } = await tx.executeSql(
    `select id, project_id as "projectId", events, table_ids::text[] as "tableIds"
       from webhook where project_id = any($1::uuid[]) and active`,
    [projectIds],
  );
  const pairs = matchSubscriptions(events, rows as Subscription[]).map(({ event, webhookId }) => ({ event, webhookId, subjectId: subjectOf(event) }));
  if (pairs.length === 0) return;

  // Chains that still have a pending event: mark their tail (it has a successor now), and the
  // new events of those chains wait. Only a tail still pending when the mark is written counts.
  const chains = new Map(pairs.filter((p) => p.subjectId !== null).map((p) => [chainKey(p.webhookId, p.subjectId!), p]));
  let waiting = new Set<string>();
  if (chains.size > 0) {
    const keys = [...chains.values()];
    const marked = await tx.executeSql(
      `update webhook_event e set has_successor = true
         from unnest($1::uuid[], $2::uuid[]) as k(webhook_id, subject_id)
        where e.webhook_id = k.webhook_id and e.subject_id = k.subject_id and e.state = 'pending' and not e.has_successor
       returning e.webhook_id, e.subject_id`,
      [keys.map((p) => p.webhookId), keys.map((p) => p.subjectId)],
    );
    waiting = new Set((marked.rows as { webhook_id: string; subject_id: string }[]).map((r) => chainKey(r.webhook_id, r.subject_id)));
  }
  const plans = planQueue(pairs, waiting);

  await tx.executeSql(
    `insert into webhook_event (webhook_id, event_id, type, body, sequence, subject_id, has_successor)
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::uuid[], $7::boolean[])
     on conflict do nothing`,
    [
      pairs.map((p) => p.webhookId),
      pairs.map((p) => p.event.id),
      pairs.map((p) => p.event.type),
      pairs.map((p) => payloadOf(p.event)),
      pairs.map((p) => p.event.sequence ?? null),
      pairs.map((p) => p.subjectId),
      plans.map((plan) => plan.hasSuccessor),
    ],
  );
  const heads = pairs.filter((_, i) => plans[i].head);
  if (heads.length === 0) return;
  await boss.insert(
    QUEUES.deliveries.name,
    heads.map(({ event, webhookId }) => deliveryJobInsert({ webhookId, eventId: event.id, attempt: 1 })),
    { db: tx },
  );
}
