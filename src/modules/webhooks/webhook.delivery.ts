import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { request, type Dispatcher } from 'undici';
import { runSql } from '../../db/sql.js';
import { outboxOfEm } from '../../jobs/outbox.js';
import { QUEUES } from '../../jobs/queues.js';
import { literalAddressProblem } from '../../net/ssrf.js';
import { uuidv7 } from '../../shared/ids.js';
import { isReleasing, releaseNext } from './webhook.chain.js';
import { deliveryJobId, type DeliveryJob } from './webhook.jobs.js';
import { ATTEMPT_TIMEOUT_MS, MAX_CONSECUTIVE_FAILURES, isDelivered, isGone, judgeAttempt, parseRetryAfter, type Verdict } from './webhook.retry.js';
import { webhookHeaders } from './webhook.signing.js';
import type { DeliveryOutput } from './webhook.schema.js';
import {
  cancelPending,
  countFailure,
  deactivateWebhook,
  deliveryTargets,
  insertDelivery,
  lockEvent,
  lockWebhook,
  recordAttemptOnly,
  resetFailures,
  updateEvent,
  type AttemptRecord,
} from './webhook.sql.js';

/**
 * Delivering one event to one webhook: the HTTP attempt, and recording it with what follows
 * (docs/webhooks.md#retries-and-disabling). Shared by the delivery worker (automatic attempts) and the API (manual retry).
 * Statements come from webhook.sql.ts and run with `runSql` on the entity manager given: on the
 * pool, or in the transaction of `em.transactional` (jobs are then sent in that transaction).
 */

export type EventState = 'pending' | 'delivered' | 'exhausted' | 'cancelled';

/** An event queued for a webhook, with what it takes to send it. */
export interface DeliveryTarget {
  webhookId: string;
  projectId: string;
  url: string;
  active: boolean;
  /** The current secret, then the previous one while it still signs (24 h after a rotation). */
  secrets: string[];
  consecutiveFailures: number;
  eventId: string;
  type: string;
  /** The exact JSON that is signed and sent, the same on every attempt. */
  body: string;
  state: EventState;
  attempts: number;
  nextAttempt: number;
  /** The row (file, table) whose events for this webhook are delivered in order; null: on its own. */
  subjectId: string | null;
  /** A later event of the same subject waits until this one is settled. */
  hasSuccessor: boolean;
}

interface TargetRow {
  webhook_id: string;
  project_id: string;
  url: string;
  active: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | string | null;
  consecutive_failures: number;
  event_id: string;
  type: string;
  body: string;
  state: EventState;
  attempts: number;
  next_attempt: number;
  subject_id: string | null;
  has_successor: boolean;
}

export const targetKey = (webhookId: string, eventId: string) => `${webhookId}:${eventId}`;

function toTarget(row: TargetRow, now: number): DeliveryTarget {
  const previousValid = row.previous_secret !== null && row.previous_secret_until !== null && new Date(row.previous_secret_until).getTime() > now;
  return {
    webhookId: row.webhook_id,
    projectId: row.project_id,
    url: row.url,
    active: row.active,
    secrets: previousValid ? [row.secret, row.previous_secret as string] : [row.secret],
    consecutiveFailures: row.consecutive_failures,
    eventId: row.event_id,
    type: row.type,
    body: row.body,
    state: row.state,
    attempts: row.attempts,
    nextAttempt: row.next_attempt,
    subjectId: row.subject_id,
    hasSuccessor: row.has_successor,
  };
}

/** The targets of several (webhook, event) pairs in one statement, by `targetKey`. */
export async function loadTargets(em: EntityManager, pairs: { webhookId: string; eventId: string }[]): Promise<Map<string, DeliveryTarget>> {
  if (pairs.length === 0) return new Map();
  const rows = await runSql<TargetRow>(em, deliveryTargets(pairs.map((p) => p.webhookId), pairs.map((p) => p.eventId)));
  const now = Date.now();
  return new Map(rows.map((row) => [targetKey(row.webhook_id, row.event_id), toTarget(row, now)]));
}

/** What one attempt gave: a status code, or an error when no response came. */
export interface AttemptOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  retryAfterSeconds: number | null;
}

const MAX_ERROR_LENGTH = 500;

function describeFailure(error: unknown, timedOut: boolean): string {
  if (timedOut) return `No response within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  // undici wraps socket errors (and our lookup's refusal) in causes.
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === 'EBLOCKEDDESTINATION') return `Refused: ${current.message}`;
    if (!current.cause) break;
    current = current.cause;
  }
  const root = current instanceof Error ? current : error;
  const code = (root as { code?: unknown } | null)?.code;
  const message = root instanceof Error ? root.message : String(root);
  return (typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message).slice(0, MAX_ERROR_LENGTH);
}

/**
 * POSTs the event to the webhook's URL once: Standard Webhooks headers, a 10 s deadline for the
 * whole exchange, the response body always drained. Resolves with null when `signal` (the
 * worker shutting down) aborted it: such an attempt is not recorded, the job runs again.
 */
export async function sendOnce(
  target: DeliveryTarget,
  dispatcher: Dispatcher,
  allowPrivate: boolean,
  signal?: AbortSignal,
): Promise<AttemptOutcome | null> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(target.url);
  const refused = literalAddressProblem(url, allowPrivate);
  if (refused) return { statusCode: null, durationMs: 0, error: `Refused: ${refused}`, retryAfterSeconds: null };
  const deadline = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher,
      headers: webhookHeaders(target.secrets, target.eventId, target.body),
      body: target.body,
      signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
    });
    // Drain what the receiver sent (up to undici's dump limit), within the same deadline.
    await response.body.dump({ limit: 64 * 1024, signal: deadline }).catch(() => {});
    return {
      statusCode: response.statusCode,
      durationMs: elapsed(),
      error: isDelivered(response.statusCode) ? null : `Endpoint answered ${response.statusCode}`,
      retryAfterSeconds: parseRetryAfter(response.headers['retry-after']),
    };
  } catch (error) {
    if (signal?.aborted && !deadline.aborted) return null;
    return { statusCode: null, durationMs: elapsed(), error: describeFailure(error, deadline.aborted), retryAfterSeconds: null };
  }
}

export type AttemptMode = { kind: 'auto'; attempt: number } | { kind: 'manual' };

/** A manual retry is one attempt: delivered, gone, or simply failed (no retries are scheduled). */
const manualVerdict = (outcome: AttemptOutcome): Verdict | { kind: 'failed' } =>
  isDelivered(outcome.statusCode) ? { kind: 'delivered' } : isGone(outcome.statusCode) ? { kind: 'gone' } : { kind: 'failed' };

export const GONE_REASON = 'The endpoint answered 410 Gone';
export const EXHAUSTED_REASON = `${MAX_CONSECUTIVE_FAILURES} consecutive events exhausted their retries`;

/**
 * Disables a webhook and cancels its pending events: their queued jobs find them cancelled and
 * stop. Callers hold the webhook row first (see recordAttempt).
 */
export async function disableWebhook(em: EntityManager, webhookId: string, reason: string | null): Promise<void> {
  await runSql(em, deactivateWebhook(webhookId, reason));
  await cancelPendingEvents(em, webhookId);
}

export async function cancelPendingEvents(em: EntityManager, webhookId: string): Promise<void> {
  await runSql(em, cancelPending(webhookId));
}

/**
 * An attempt as recorded, and whether it settled an event that another one of its row waits
 * behind (see webhook.chain.ts): that one is then released, or left to the caller to deliver.
 */
export interface RecordedAttempt {
  delivery: DeliveryOutput;
  releases: boolean;
}

/**
 * Records an attempt that changes nothing but the event (one statement, atomic on its own): the
 * next attempt number, the event's new state when `newState` is given and this attempt is in
 * charge (`autoAttempt` null = manual, always in charge), and the delivery row. The update
 * returns the event as it is after the lock, so a successor queued meanwhile is seen.
 */
async function recordOnly(
  em: EntityManager,
  target: DeliveryTarget,
  outcome: AttemptOutcome,
  autoAttempt: number | null,
  newState: EventState | null,
): Promise<RecordedAttempt | null> {
  const [row] = await runSql<DeliveryRow & { state: EventState; has_successor: boolean }>(
    em,
    recordAttemptOnly(attemptRecord(target, outcome), autoAttempt, newState),
  );
  if (!row) return null;
  return { delivery: toDeliveryOutput(row), releases: isReleasing({ subjectId: target.subjectId, state: row.state, hasSuccessor: row.has_successor }) };
}

interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: Date | string;
}

/** The attempt's delivery row, stamped now. */
function attemptRecord(target: DeliveryTarget, outcome: AttemptOutcome): AttemptRecord {
  const now = Date.now();
  const { webhookId, eventId, type } = target;
  return { deliveryId: uuidv7(now), webhookId, eventId, type, statusCode: outcome.statusCode, durationMs: outcome.durationMs, error: outcome.error, createdAt: new Date(now) };
}

export const toDeliveryOutput = (row: DeliveryRow): DeliveryOutput => ({
  id: row.id,
  eventId: row.event_id,
  type: row.type,
  attempt: row.attempt,
  statusCode: row.status_code,
  durationMs: row.duration_ms,
  error: row.error,
  createdAt: new Date(row.created_at).toISOString(),
});

/**
 * Records one attempt and applies its consequences in one transaction: the delivery row, the
 * event's state, the next automatic attempt as a delayed job (sent through the same
 * transaction), and the webhook's failure count or disabling.
 *
 * When the attempt settles an event that the next one of its row waits behind, that one is
 * released (given its delivery job), unless `handOver` is 'caller': the delivery worker then
 * delivers it at once itself. (A worker that dies before either leaves its job unfinished: the
 * job runs again, finds the event settled and releases the next one then.)
 *
 * An automatic attempt only decides the event's fate while it is the one in charge (the event
 * is pending and waits for exactly this attempt): a job that runs again after its work was
 * committed, or one whose webhook was disabled meanwhile, is still recorded but changes nothing.
 *
 * Locks: the webhook row (when it changes) before the event row, like every other writer, so
 * that concurrent attempts of one webhook cannot deadlock. `for no key update` leaves the
 * foreign-key checks of concurrent inserts free.
 */
export async function recordAttempt(
  em: EntityManager,
  boss: PgBoss,
  target: DeliveryTarget,
  outcome: AttemptOutcome,
  mode: AttemptMode,
  delays: readonly number[],
  handOver: 'release' | 'caller' = 'release',
): Promise<RecordedAttempt | null> {
  const verdict = mode.kind === 'auto' ? judgeAttempt(outcome, mode.attempt, delays) : manualVerdict(outcome);
  const changesWebhook =
    verdict.kind === 'gone' || verdict.kind === 'exhausted' || (verdict.kind === 'delivered' && target.consecutiveFailures > 0);
  // The common case (delivered, nothing else to change; or a failed manual retry): one statement.
  if ((verdict.kind === 'delivered' || verdict.kind === 'failed') && !changesWebhook) {
    const newState: EventState | null = verdict.kind === 'delivered' ? 'delivered' : null;
    const recorded = await recordOnly(em, target, outcome, mode.kind === 'auto' ? mode.attempt : null, newState);
    if (recorded?.releases && handOver === 'release') await releaseNext(em, boss, target.webhookId, target.subjectId!);
    return recorded;
  }
  return em.transactional(async (tx) => {
    const { webhookId, eventId } = target;
    if (changesWebhook) await runSql(tx, lockWebhook(webhookId));
    const [event] = await runSql<{ state: EventState; attempts: number; next_attempt: number; has_successor: boolean }>(tx, lockEvent(webhookId, eventId));
    // The webhook (and with it the event) was deleted while the request was in flight.
    if (!event) return null;
    let state: EventState = event.state;
    let nextAttempt: number = event.next_attempt;
    const inCharge = mode.kind === 'manual' || (event.state === 'pending' && event.next_attempt === mode.attempt);
    if (inCharge) {
      switch (verdict.kind) {
        case 'delivered':
          state = 'delivered';
          // Only with the webhook row held (see changesWebhook): never lock it after the event row.
          if (changesWebhook) await runSql(tx, resetFailures(webhookId));
          break;
        case 'gone':
          await disableWebhook(tx, webhookId, GONE_REASON);
          state = 'cancelled';
          break;
        case 'retry': {
          const next: DeliveryJob = { webhookId, eventId, attempt: nextAttempt + 1 };
          nextAttempt = next.attempt;
          await boss.send(QUEUES.deliveries.name, next, {
            id: deliveryJobId(next),
            startAfter: new Date(Date.now() + verdict.delayMs),
            group: { id: webhookId },
            db: outboxOfEm(tx),
          });
          break;
        }
        case 'exhausted': {
          const [webhook] = await runSql<{ consecutive_failures: number }>(tx, countFailure(webhookId));
          if (webhook?.consecutive_failures >= MAX_CONSECUTIVE_FAILURES) await disableWebhook(tx, webhookId, EXHAUSTED_REASON);
          state = 'exhausted';
          break;
        }
      }
    }
    const attempt = event.attempts + 1;
    await runSql(tx, updateEvent(webhookId, eventId, attempt, state, nextAttempt));
    const releases = isReleasing({ subjectId: target.subjectId, state, hasSuccessor: event.has_successor });
    if (releases && handOver === 'release') await releaseNext(tx, boss, webhookId, target.subjectId!);
    const [delivery] = await runSql<DeliveryRow>(tx, insertDelivery(attemptRecord(target, outcome), attempt));
    return { delivery: toDeliveryOutput(delivery), releases };
  });
}
