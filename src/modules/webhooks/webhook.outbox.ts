import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { sqlOn } from '../../db/sql.js';
import { outboxOfClient, type DomainEvent } from '../../jobs/outbox.js';
import { appendToEventFeed, takeOutboxBatch, tryAdvisoryXactLock } from '../../jobs/outbox.sql.js';
import { QUEUES } from '../../jobs/queues.js';
import { chainKey, matchSubscriptions, payloadOf, planQueue, subjectOf, type Subscription } from './webhook.fanout.js';
import { deliveryJobInsert } from './webhook.jobs.js';
import * as q from './webhook.sql.js';

/**
 * Fan-out, in the outbox relay's transaction (`client`, between `begin` and `commit`): each event
 * (in sequence order) becomes one queued event per active webhook of its project that subscribes
 * to it (`webhook_event`, the body that will be signed), and the first pending event of each chain
 * (webhook, row) a delivery job; the others wait behind it (see webhook.chain.ts). Everything
 * commits with the removal of the events from the outbox, so a fan-out that fails or dies is
 * simply done again; job ids derive from (event, webhook, attempt) on top of that, so nothing can
 * be queued twice.
 */
export async function fanOut(boss: PgBoss, client: pg.PoolClient, events: DomainEvent[]): Promise<void> {
  const sql = sqlOn(client);
  const projectIds = [...new Set(events.map((event) => event.projectId))];
  const subscriptions = await sql<Subscription>(q.activeSubscriptions(projectIds));
  const pairs = matchSubscriptions(events, subscriptions).map(({ event, webhookId }) => ({ event, webhookId, subjectId: subjectOf(event) }));
  if (pairs.length === 0) return;

  // Chains that still have a pending event: mark their tail (it has a successor now), and the
  // new events of those chains wait.
  const chains = new Map(pairs.filter((p) => p.subjectId !== null).map((p) => [chainKey(p.webhookId, p.subjectId!), p]));
  let waiting = new Set<string>();
  if (chains.size > 0) {
    const keys = [...chains.values()];
    const marked = await sql<{ webhook_id: string; subject_id: string }>(
      q.markChainTails(
        keys.map((p) => p.webhookId),
        keys.map((p) => p.subjectId!),
      ),
    );
    waiting = new Set(marked.map((r) => chainKey(r.webhook_id, r.subject_id)));
  }
  const plans = planQueue(pairs, waiting);

  await sql(
    q.insertWebhookEvents({
      webhookIds: pairs.map((p) => p.webhookId),
      eventIds: pairs.map((p) => p.event.id),
      types: pairs.map((p) => p.event.type),
      bodies: pairs.map((p) => payloadOf(p.event)),
      sequences: pairs.map((p) => p.event.sequence ?? null),
      subjectIds: pairs.map((p) => p.subjectId),
      hasSuccessor: plans.map((plan) => plan.hasSuccessor),
    }),
  );
  const heads = pairs.filter((_, i) => plans[i].head);
  if (heads.length === 0) return;
  // The delivery jobs go through pg-boss's own insert, on the same client (transactional outbox).
  await boss.insert(
    QUEUES.deliveries.name,
    heads.map(({ event, webhookId }) => deliveryJobInsert({ webhookId, eventId: event.id, attempt: 1 })),
    { db: outboxOfClient(client) },
  );
}

/** Advisory lock key of the relay: one relay at a time, across worker processes. */
const RELAY_LOCK = 'tabula:outbox-relay';

/**
 * One step of the outbox relay, in the caller's transaction on `client`: takes the relay lock
 * (or answers `null` when another relay holds it), removes up to `batch` events from
 * `event_outbox` in `seq` order and fans them out. Answers how many events it moved.
 */
export async function relayOutboxBatch(boss: PgBoss, client: pg.PoolClient, batch: number): Promise<number | null> {
  const sql = sqlOn(client);
  const [lock] = await sql<{ ok: boolean }>(tryAdvisoryXactLock(RELAY_LOCK));
  if (!lock.ok) return null;
  const rows = await sql<{ seq: string; payload: DomainEvent }>(takeOutboxBatch(batch));
  if (rows.length > 0) {
    const events = rows.map(({ seq, payload }) => ({ ...payload, sequence: Number(seq) })).sort((a, b) => a.sequence - b.sequence);
    await fanOut(boss, client, events);
    // The realtime feed (docs/realtime.md#how-it-works) takes them in the same transaction and order.
    await sql(appendToEventFeed(events.map((e) => e.id), events.map((e) => e.projectId), events.map((e) => JSON.stringify(e))));
  }
  return rows.length;
}
