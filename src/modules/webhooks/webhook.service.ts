import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { findPage } from '../../db/find-page.js';
import { runSql } from '../../db/sql.js';
import { notFound, validationError, type ErrorDetail } from '../../errors/app-error.js';
import { createDeliveryAgent, destinationProblem } from '../../net/ssrf.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import type { PageParams } from '../../shared/pagination.js';
import { resolveTableRefs } from '../tables/table-refs.js';
import { cancelPendingEvents, loadTargets, recordAttempt, sendOnce, targetKey } from './webhook.delivery.js';
import { WebhookDeliverySchema, WebhookSchema, type Webhook, type WebhookDelivery } from './webhook.entity.js';
import type { CreateWebhookInput, DeliveryOutput, UpdateWebhookInput, WebhookOutput } from './webhook.schema.js';
import { generateWebhookSecret } from './webhook.signing.js';
import { expiredEventsBatch } from './webhook.sql.js';

/** After a rotation the previous secret keeps signing for 24 hours (docs/webhooks.md#what-a-delivery-looks-like). */
export const PREVIOUS_SECRET_HOURS = 24;

/** What the webhook endpoints need beyond the entity manager. */
export interface WebhookDeps {
  boss: PgBoss;
  allowPrivate: boolean;
  retryDelays: readonly number[];
}

export const toWebhookOutput = (w: Webhook): WebhookOutput => ({
  id: w.id,
  name: w.name,
  url: w.url,
  events: w.events,
  tableIds: w.tableIds,
  active: w.active,
  disabledReason: w.disabledReason ?? null,
  createdAt: iso(w.createdAt),
  updatedAt: iso(w.updatedAt),
});

const toDeliveryOutput = (d: WebhookDelivery): DeliveryOutput => ({
  id: d.id,
  eventId: d.eventId,
  type: d.type,
  attempt: d.attempt,
  statusCode: d.statusCode ?? null,
  durationMs: d.durationMs,
  error: d.error ?? null,
  createdAt: iso(d.createdAt),
});

/**
 * The semantic checks of a create or update (422, every offending field at once): the URL's host
 * must resolve to public addresses only (SSRF), and `tableIds` must name tables of the project,
 * by id or key. Answers the table ids to store (deduplicated), when `tableIds` was given.
 */
async function checkTargets(em: EntityManager, projectId: string, allowPrivate: boolean, url?: string, tableIds?: string[]): Promise<string[] | undefined> {
  const details: ErrorDetail[] = [];
  if (url !== undefined) {
    const problem = await destinationProblem(new URL(url), allowPrivate);
    // Say how to lift the check: a receiver on localhost is what everyone tries first.
    if (problem) details.push({ field: 'url', message: `must not point to a private network: ${problem} (a server started with WEBHOOKS_ALLOW_PRIVATE=true allows it; for local testing only)` });
  }
  const resolved = tableIds?.length ? await resolveTableRefs(em, projectId, tableIds) : new Map<string, string>();
  const missing = (tableIds ?? []).filter((ref) => !resolved.has(ref));
  if (missing.length) details.push({ field: 'tableIds', message: `not a table of this project: ${missing.slice(0, 5).join(', ')}` });
  if (details.length) throw validationError(details);
  return tableIds && [...new Set(tableIds.map((ref) => resolved.get(ref)!))];
}

export async function findWebhook(em: EntityManager, projectId: string, webhookId: string): Promise<Webhook> {
  const webhook = isUuid(webhookId) ? await em.findOne(WebhookSchema, { id: webhookId, project: projectId }) : null;
  if (!webhook) throw notFound('Webhook');
  return webhook;
}

export async function listWebhooks(em: EntityManager, projectId: string, params: PageParams) {
  const where = { project: projectId };
  return findPage(em, WebhookSchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toWebhookOutput);
}

/** Creates a webhook; its secret is in the result once. */
export async function createWebhook(em: EntityManager, deps: WebhookDeps, projectId: string, input: CreateWebhookInput) {
  const tableIds = await checkTargets(em, projectId, deps.allowPrivate, input.url, input.tableIds);
  const secret = generateWebhookSecret();
  const webhook = em.create(WebhookSchema, {
    project: projectId,
    name: input.name ?? new URL(input.url).host,
    url: input.url,
    events: input.events,
    tableIds: tableIds ?? [],
    active: input.active ?? true,
    secret,
    disabledReason: null,
    consecutiveFailures: 0,
  });
  await em.flush();
  return { ...toWebhookOutput(webhook), secret };
}

/**
 * PUT (partial). `active: true` re-enables: the failure count and disabledReason are cleared and
 * new events are delivered again. `active: false` also stops the deliveries still pending.
 */
export async function updateWebhook(em: EntityManager, deps: WebhookDeps, webhook: Webhook, input: UpdateWebhookInput): Promise<WebhookOutput> {
  const tableIds = await checkTargets(em, webhook.project.id, deps.allowPrivate, input.url, input.tableIds);
  return em.transactional(async (tx) => {
    const managed = tx.merge(webhook);
    if (input.name !== undefined) managed.name = input.name;
    if (input.url !== undefined) managed.url = input.url;
    if (input.events !== undefined) managed.events = input.events;
    if (tableIds !== undefined) managed.tableIds = tableIds;
    if (input.active === true) {
      managed.active = true;
      managed.disabledReason = null;
      managed.consecutiveFailures = 0;
    }
    const deactivated = input.active === false && managed.active;
    if (deactivated) managed.active = false;
    // The webhook row first, then its events: the lock order of every writer (see recordAttempt).
    await tx.flush();
    if (deactivated) await cancelPendingEvents(tx, managed.id);
    return toWebhookOutput(managed);
  });
}

/** Deleting cascades to its queued events and delivery records; queued jobs then find nothing. */
export async function deleteWebhook(em: EntityManager, webhook: Webhook): Promise<void> {
  await em.remove(webhook).flush();
}

/** A new secret, shown once; the previous one keeps signing (second signature) for 24 h. */
export async function rotateWebhookSecret(em: EntityManager, webhook: Webhook) {
  const secret = generateWebhookSecret();
  webhook.previousSecret = webhook.secret;
  webhook.previousSecretUntil = new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3600_000);
  webhook.secret = secret;
  await em.flush();
  return { ...toWebhookOutput(webhook), secret };
}

/** Attempts, newest first (docs/webhooks.md#retries-and-disabling). */
export async function listDeliveries(em: EntityManager, webhook: Webhook, params: PageParams) {
  const where = { webhook: webhook.id };
  return findPage(em, WebhookDeliverySchema, where, params, { orderBy: { createdAt: 'desc', id: 'desc' } }, toDeliveryOutput);
}

/** The webhook an attempt belongs to, for operators who only know the attempt's id (the CLI). */
export async function findWebhookOfDelivery(em: EntityManager, deliveryId: string): Promise<Webhook> {
  const delivery = isUuid(deliveryId) ? await em.findOne(WebhookDeliverySchema, { id: deliveryId }, { populate: ['webhook'] }) : null;
  if (!delivery) throw notFound('Delivery');
  return delivery.webhook;
}

/**
 * Delivers the event of an earlier attempt again, now, and answers with the new attempt. Runs in
 * the API process because the caller waits for the outcome; it goes through the same code as
 * the worker (SSRF-guarded connection, 10 s deadline, recording). One attempt: a failure
 * schedules nothing, a success marks the event delivered (a retry still queued then skips it).
 */
export async function retryDelivery(em: EntityManager, deps: WebhookDeps, webhook: Webhook, deliveryId: string): Promise<DeliveryOutput> {
  const delivery = isUuid(deliveryId) ? await em.findOne(WebhookDeliverySchema, { id: deliveryId, webhook: webhook.id }) : null;
  if (!delivery) throw notFound('Delivery');
  const targets = await loadTargets(em, [{ webhookId: webhook.id, eventId: delivery.eventId }]);
  const target = targets.get(targetKey(webhook.id, delivery.eventId));
  if (!target) throw notFound('Delivery');
  const agent = createDeliveryAgent(deps.allowPrivate);
  try {
    // Without a shutdown signal there is always an outcome.
    const outcome = await sendOnce(target, agent, deps.allowPrivate);
    const recorded = outcome && (await recordAttempt(em, deps.boss, target, outcome, { kind: 'manual' }, deps.retryDelays));
    // Null only when the webhook was deleted while the request was in flight.
    if (!recorded) throw notFound('Webhook');
    return recorded.delivery;
  } finally {
    await agent.close();
  }
}

/** Webhook events deleted per statement by the retention sweep: short locks, small WAL bursts. */
const RETENTION_BATCH = 1000;

/**
 * Removes queued event bodies (and with them their delivery attempts, foreign key) created before
 * `cutoff`, in batches. An event still pending (a retry scheduled) is kept until it settles.
 * Answers how many events it removed.
 */
export async function removeWebhookHistoryBefore(em: EntityManager, cutoff: Date): Promise<number> {
  let removed = 0;
  for (;;) {
    const deleted = await runSql(em, expiredEventsBatch(cutoff, RETENTION_BATCH));
    removed += deleted.length;
    if (deleted.length < RETENTION_BATCH) return removed;
  }
}
