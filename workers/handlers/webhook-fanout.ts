import type { Db, Job, PgBoss } from 'pg-boss';
import type { DomainEvent } from '../../src/jobs/outbox.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { matchSubscriptions, payloadOf, type Subscription } from '../../src/modules/webhooks/webhook.fanout.js';
import { deliveryJobId, type DeliveryJob } from '../../src/modules/webhooks/webhook.jobs.js';

/** Events taken per batch: one query for the webhooks and two inserts for the whole batch. */
const BATCH_SIZE = 100;

/**
 * Fan-out (queue `events`): each event becomes one delivery job per active webhook of its
 * project that subscribes to it. The worker is transactional: the queued events of every
 * matching webhook (`webhook_event`, the body that will be signed), their delivery jobs and the
 * completion of the event jobs commit together, so a fan-out that fails or dies is simply done
 * again. Job ids derive from (event, webhook, attempt) on top of that, so nothing can be queued
 * twice.
 */
export function startFanoutWorker(boss: PgBoss): Promise<string> {
  return boss.work(
    QUEUES.events.name,
    {
      batchSize: BATCH_SIZE,
      transactional: true,
      // Keep pulling while batches come back full; NOTIFY wakes the worker when events arrive.
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      notifyPollingIntervalSeconds: 1,
    },
    async (jobs: Job<DomainEvent>[], tx: Db) => fanOut(boss, tx, jobs.map((job) => job.data)),
  );
}

export async function fanOut(boss: PgBoss, tx: Db, events: DomainEvent[]): Promise<void> {
  const projectIds = [...new Set(events.map((event) => event.projectId))];
  const { rows } = await tx.executeSql(
    `select id, project_id as "projectId", events, table_ids::text[] as "tableIds"
       from webhook where project_id = any($1::uuid[]) and active`,
    [projectIds],
  );
  const pairs = matchSubscriptions(events, rows as Subscription[]);
  if (pairs.length === 0) return;
  await tx.executeSql(
    `insert into webhook_event (webhook_id, event_id, type, body)
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[])
     on conflict do nothing`,
    [pairs.map((p) => p.webhookId), pairs.map((p) => p.event.id), pairs.map((p) => p.event.type), pairs.map((p) => payloadOf(p.event))],
  );
  await boss.insert(
    QUEUES.deliveries.name,
    pairs.map(({ event, webhookId }) => {
      const data: DeliveryJob = { webhookId, eventId: event.id, attempt: 1 };
      // The group lets the delivery worker cap how many slots one webhook may hold.
      return { id: deliveryJobId(data), data, group: { id: webhookId } };
    }),
    { db: tx },
  );
}
