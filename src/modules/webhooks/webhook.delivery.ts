import type { Kysely } from 'kysely';
import { fromKysely, type Db, type PgBoss } from 'pg-boss';
import { request, type Dispatcher } from 'undici';
import { QUEUES } from '../../jobs/queues.js';
import { literalAddressProblem } from '../../net/ssrf.js';
import { uuidv7 } from '../../shared/ids.js';
import { isReleasing, releaseNext } from './webhook.chain.js';
import { deliveryJobId, type DeliveryJob } from './webhook.jobs.js';
import { ATTEMPT_TIMEOUT_MS, MAX_CONSECUTIVE_FAILURES, isDelivered, isGone, judgeAttempt, parseRetryAfter, type Verdict } from './webhook.retry.js';
import { webhookHeaders } from './webhook.signing.js';
import type { DeliveryOutput } from './webhook.schema.js';

/**
 * Delivering one event to one webhook: the HTTP attempt, and recording it with what follows
 * (SPEC §8). Shared by the delivery worker (automatic attempts) and the API (manual retry).
 * All SQL here goes through a pg-boss `Db` (`$n` placeholders), so it runs the same on
 * a pg-boss transaction and on a Kysely one.
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
export async function loadTargets(db: Db, pairs: { webhookId: string; eventId: string }[]): Promise<Map<string, DeliveryTarget>> {
  if (pairs.length === 0) return new Map();
  const { rows } = await db.executeSql(
    `select w.id as webhook_id, w.project_id, w.url, w.active, w.secret, w.previous_secret, w.previous_secret_until,
            w.consecutive_failures, e.event_id, e.type, e.body, e.state, e.attempts, e.next_attempt,
            e.subject_id, e.has_successor
       from unnest($1::uuid[], $2::uuid[]) as k(webhook_id, event_id)
       join webhook_event e on e.webhook_id = k.webhook_id and e.event_id = k.event_id
       join webhook w on w.id = e.webhook_id`,
    [pairs.map((p) => p.webhookId), pairs.map((p) => p.eventId)],
  );
  const now = Date.now();
  return new Map((rows as TargetRow[]).map((row) => [targetKey(row.webhook_id, row.event_id), toTarget(row, now)]));
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
export async function disableWebhook(db: Db, webhookId: string, reason: string | null): Promise<void> {
  await db.executeSql(`update webhook set active = false, disabled_reason = $2, updated_at = now() where id = $1 and active`, [webhookId, reason]);
  await cancelPendingEvents(db, webhookId);
}

export async function cancelPendingEvents(db: Db, webhookId: string): Promise<void> {
  await db.executeSql(`update webhook_event set state = 'cancelled', updated_at = now() where webhook_id = $1 and state = 'pending'`, [webhookId]);
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
  db: Db,
  target: DeliveryTarget,
  outcome: AttemptOutcome,
  autoAttempt: number | null,
  newState: EventState | null,
): Promise<RecordedAttempt | null> {
  const now = Date.now();
  const { rows } = await db.executeSql(
    `with event as (
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
    [target.webhookId, target.eventId, uuidv7(now), target.type, autoAttempt, outcome.statusCode, outcome.durationMs, outcome.error, new Date(now), newState],
  );
  const row = rows[0] as (DeliveryRow & { state: EventState; has_successor: boolean }) | undefined;
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
  kysely: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any
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
    const db = fromKysely(kysely);
    const recorded = await recordOnly(db, target, outcome, mode.kind === 'auto' ? mode.attempt : null, newState);
    if (recorded?.releases && handOver === 'release') await releaseNext(db, boss, target.webhookId, target.subjectId!);
    return recorded;
  }
  return kysely.transaction().execute(async (trx) => {
    const db = fromKysely(trx);
    const { webhookId, eventId } = target;
    if (changesWebhook) await db.executeSql('select 1 from webhook where id = $1 for no key update', [webhookId]);
    const {
      rows: [event],
    } = await db.executeSql(
      'select state, attempts, next_attempt, has_successor from webhook_event where webhook_id = $1 and event_id = $2 for update',
      [webhookId, eventId],
    );
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
          if (changesWebhook) await db.executeSql('update webhook set consecutive_failures = 0 where id = $1 and consecutive_failures <> 0', [webhookId]);
          break;
        case 'gone':
          await disableWebhook(db, webhookId, GONE_REASON);
          state = 'cancelled';
          break;
        case 'retry': {
          const next: DeliveryJob = { webhookId, eventId, attempt: nextAttempt + 1 };
          nextAttempt = next.attempt;
          await boss.send(QUEUES.deliveries.name, next, {
            id: deliveryJobId(next),
            startAfter: new Date(Date.now() + verdict.delayMs),
            group: { id: webhookId },
            db,
          });
          break;
        }
        case 'exhausted': {
          const { rows } = await db.executeSql(
            'update webhook set consecutive_failures = consecutive_failures + 1 where id = $1 returning consecutive_failures',
            [webhookId],
          );
          if (rows[0]?.consecutive_failures >= MAX_CONSECUTIVE_FAILURES) await disableWebhook(db, webhookId, EXHAUSTED_REASON);
          state = 'exhausted';
          break;
        }
      }
    }
    const attempt = event.attempts + 1;
    await db.executeSql(
      'update webhook_event set attempts = $3, state = $4, next_attempt = $5, updated_at = now() where webhook_id = $1 and event_id = $2',
      [webhookId, eventId, attempt, state, nextAttempt],
    );
    const releases = isReleasing({ subjectId: target.subjectId, state, hasSuccessor: event.has_successor });
    if (releases && handOver === 'release') await releaseNext(db, boss, webhookId, target.subjectId!);
    const now = Date.now();
    const { rows } = await db.executeSql(
      `insert into webhook_delivery (id, webhook_id, event_id, type, attempt, status_code, duration_ms, error, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       returning id, event_id, type, attempt, status_code, duration_ms, error, created_at`,
      [uuidv7(now), webhookId, eventId, target.type, attempt, outcome.statusCode, outcome.durationMs, outcome.error, new Date(now)],
    );
    return { delivery: toDeliveryOutput(rows[0] as DeliveryRow), releases };
  });
}
