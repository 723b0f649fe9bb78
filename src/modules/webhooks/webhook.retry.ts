/**
 * What happens after one delivery attempt (docs/webhooks.md#retries-and-disabling): pure functions of the outcome, so the rules
 * are tested without a clock, a network or a database.
 */

/** Any 2xx answer means delivered. */
export const isDelivered = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** 410 Gone disables the webhook at once. */
export const isGone = (statusCode: number | null): boolean => statusCode === 410;

/** After this many events in a row exhaust their retries, the webhook is disabled. */
export const MAX_CONSECUTIVE_FAILURES = 5;

/** Every attempt is cut off after this: only a 2xx within 10 s is a delivery (docs/webhooks.md#retries-and-disabling). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The longest `Retry-After` honoured: a receiver cannot park an event for longer than a day. */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** ±10% around each configured delay, so that receivers recovering from an outage are not hit all at once. */
export const JITTER = 0.1;

/**
 * Seconds a `Retry-After` header asks for: whole seconds or an HTTP date (RFC 9110). Null when
 * absent or unreadable.
 */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), MAX_RETRY_AFTER_SECONDS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, Math.ceil((date - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

export type Verdict =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'exhausted' };

export interface AttemptResult {
  statusCode: number | null;
  /** From `Retry-After`; only honoured on 429 and 503. */
  retryAfterSeconds: number | null;
}

/**
 * The verdict on automatic attempt `attempt` (1 = first delivery) given `delays` (seconds between
 * attempts, WEBHOOK_RETRY_DELAYS): delivered, gone, retried after the next delay (with jitter, or
 * longer when the receiver's Retry-After asks for it on 429/503), or out of retries.
 */
export function judgeAttempt(result: AttemptResult, attempt: number, delays: readonly number[], random = Math.random): Verdict {
  if (isDelivered(result.statusCode)) return { kind: 'delivered' };
  if (isGone(result.statusCode)) return { kind: 'gone' };
  if (attempt > delays.length) return { kind: 'exhausted' };
  const base = delays[attempt - 1] * 1000;
  let delayMs = Math.round(base * (1 + JITTER * (2 * random() - 1)));
  const honoursRetryAfter = result.statusCode === 429 || result.statusCode === 503;
  if (honoursRetryAfter && result.retryAfterSeconds !== null && result.retryAfterSeconds * 1000 > delayMs) {
    delayMs = result.retryAfterSeconds * 1000;
  }
  return { kind: 'retry', delayMs };
}
