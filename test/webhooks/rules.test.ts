import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { DomainEvent } from '../../src/modules/events/vocabulary.js';
import { chainKey, matchSubscriptions, payloadOf, planQueue, subjectOf, subscribes, type QueuedPair, type Subscription } from '../../src/modules/webhooks/webhook.fanout.js';
import { deliveryJobId, uuidv5 } from '../../src/modules/webhooks/webhook.jobs.js';
import { judgeAttempt, parseRetryAfter } from '../../src/modules/webhooks/webhook.retry.js';
import { generateWebhookSecret, webhookHeaders } from '../../src/modules/webhooks/webhook.signing.js';

/** The pure rules of docs/webhooks.md: matching, retry schedule, Retry-After, signatures, job ids. */

const P = '0190b0a0-0000-7000-8000-0000000000aa';
const T1 = '0190b0a0-0000-7000-8000-0000000000b1';
const T2 = '0190b0a0-0000-7000-8000-0000000000b2';
const event = (type: DomainEvent['type'], tableId: string | null = T1, projectId = P): DomainEvent => ({
  id: '0190b0a0-0000-7000-8000-0000000000e1',
  type,
  projectId,
  tableId,
  createdAt: '2026-11-22T10:00:00.000Z',
  data: { id: 'x', ok: true },
});
const hook = (events: string[], tableIds: string[] = [], id = 'h'): Subscription => ({ id, projectId: P, events, tableIds });

describe('fan-out matching', () => {
  it('type or *, same project; tableIds narrows contents events only', () => {
    expect(subscribes(hook(['*']), event('files.created', null))).toBe(true);
    expect(subscribes(hook(['contents.created']), event('contents.created'))).toBe(true);
    expect(subscribes(hook(['contents.created']), event('contents.updated'))).toBe(false);
    expect(subscribes(hook(['*']), event('contents.created', T1, '0190b0a0-0000-7000-8000-0000000000ff'))).toBe(false);
    expect(subscribes(hook(['*'], [T1]), event('contents.deleted', T1))).toBe(true);
    expect(subscribes(hook(['*'], [T1]), event('contents.deleted', T2))).toBe(false);
    expect(subscribes(hook(['*'], [T1]), event('tables.created', T2))).toBe(true);
    expect(subscribes(hook(['*'], [T1]), event('files.updated', null))).toBe(true);
    const pairs = matchSubscriptions([event('contents.created', T1), event('contents.created', T2)], [hook(['*'], [], 'a'), hook(['*'], [T2], 'b')]);
    expect(pairs.map((p) => `${p.event.tableId}:${p.webhookId}`)).toEqual([`${T1}:a`, `${T2}:a`, `${T2}:b`]);
  });

  it('the payload is { id, type, projectId, createdAt, sequence, data } without tableId', () => {
    const body = JSON.parse(payloadOf({ ...event('contents.created'), sequence: 42 }));
    expect(Object.keys(body)).toEqual(['id', 'type', 'projectId', 'createdAt', 'sequence', 'data']);
    expect(body.sequence).toBe(42);
  });

  it("an event's subject is the UUID in data.id (lower-cased); anything else has none", () => {
    const id = '0190B0A0-0000-7000-8000-0000000000C1';
    expect(subjectOf({ ...event('contents.created'), data: { id } })).toBe(id.toLowerCase());
    expect(subjectOf({ ...event('contents.created'), data: { id: 'x' } })).toBeNull();
    expect(subjectOf({ ...event('files.deleted'), data: {} })).toBeNull();
  });
});

describe('retry schedule', () => {
  const delays = [5, 300, 1800];
  it('2xx delivered, 410 gone, others retried after the configured delay ±10%, then exhausted', () => {
    expect(judgeAttempt({ statusCode: 204, retryAfterSeconds: null }, 1, delays)).toEqual({ kind: 'delivered' });
    expect(judgeAttempt({ statusCode: 410, retryAfterSeconds: null }, 1, delays)).toEqual({ kind: 'gone' });
    expect(judgeAttempt({ statusCode: 500, retryAfterSeconds: null }, 1, delays, () => 0.5)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(judgeAttempt({ statusCode: null, retryAfterSeconds: null }, 2, delays, () => 0)).toEqual({ kind: 'retry', delayMs: 270_000 });
    expect(judgeAttempt({ statusCode: 302, retryAfterSeconds: null }, 3, delays, () => 1)).toEqual({ kind: 'retry', delayMs: 1_980_000 });
    expect(judgeAttempt({ statusCode: 500, retryAfterSeconds: null }, 4, delays)).toEqual({ kind: 'exhausted' });
    for (let i = 0; i < 200; i++) {
      const verdict = judgeAttempt({ statusCode: 500, retryAfterSeconds: null }, 1, delays);
      expect(verdict.kind === 'retry' && verdict.delayMs >= 4500 && verdict.delayMs <= 5500).toBe(true);
    }
  });

  it('Retry-After on 429/503 wins when longer than the next delay; ignored otherwise', () => {
    const half = () => 0.5;
    expect(judgeAttempt({ statusCode: 429, retryAfterSeconds: 60 }, 1, delays, half)).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(judgeAttempt({ statusCode: 503, retryAfterSeconds: 2 }, 1, delays, half)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(judgeAttempt({ statusCode: 500, retryAfterSeconds: 60 }, 1, delays, half)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(judgeAttempt({ statusCode: 429, retryAfterSeconds: 60 }, 4, delays, half)).toEqual({ kind: 'exhausted' });
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('99999999', now)).toBe(86_400);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('signatures and ids', () => {
  it('headers verify with the standardwebhooks package, with one secret or two (rotation)', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = payloadOf(event('contents.created'));
    const single = webhookHeaders([a], 'msg_1', body);
    expect(new Webhook(a).verify(body, single)).toEqual(JSON.parse(body));
    expect(() => new Webhook(b).verify(body, single)).toThrow();
    const both = webhookHeaders([b, a], 'msg_1', body);
    expect(both['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, both)).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, both)).toEqual(JSON.parse(body));
    expect(() => new Webhook(a).verify(body + ' ', both)).toThrow();
  });

  it('delivery job ids are UUIDs derived from (event, webhook, attempt)', () => {
    const job = { eventId: 'e', webhookId: 'w', attempt: 1 };
    expect(deliveryJobId(job)).toBe(deliveryJobId({ ...job }));
    expect(deliveryJobId(job)).not.toBe(deliveryJobId({ ...job, attempt: 2 }));
    expect(uuidv5('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('order of deliveries: how new events join the chains', () => {
  it('per chain the first new event is sent unless the chain waits; each later one waits behind the one before', () => {
    const pairs: QueuedPair[] = [
      { webhookId: 'a', subjectId: 'r1' },
      { webhookId: 'b', subjectId: 'r1' },
      { webhookId: 'a', subjectId: 'r1' },
      { webhookId: 'a', subjectId: null },
      { webhookId: 'a', subjectId: 'r2' },
      { webhookId: 'a', subjectId: 'r2' },
      { webhookId: 'a', subjectId: null },
    ];
    expect(planQueue(pairs, new Set([chainKey('a', 'r2')]))).toEqual([
      { head: true, hasSuccessor: true },
      { head: true, hasSuccessor: false },
      { head: false, hasSuccessor: false },
      { head: true, hasSuccessor: false },
      { head: false, hasSuccessor: true },
      { head: false, hasSuccessor: false },
      { head: true, hasSuccessor: false },
    ]);
  });

  /**
   * The chain protocol run against a model: batches of events join the chains (the fan-out marks
   * the pending tail of a chain and its new events wait), and events in flight settle in any order
   * (a settled event with a successor releases the oldest pending one of its chain). Whatever the
   * interleaving: per chain at most one event is in flight, events are sent in queue order, and
   * once everything has settled every event was sent.
   */
  it('property: one event in flight per chain, sent in queue order, none left behind', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('batch' as const), pairs: fc.array(fc.record({ w: fc.constantFrom('a', 'b'), s: fc.constantFrom('r1', 'r2', 'r3', null) }), { maxLength: 6 }) }),
      fc.record({ kind: fc.constant('settle' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        interface Queued { id: number; key: string | null; pending: boolean; hasSuccessor: boolean }
        const queued: Queued[] = [];
        const inFlight: Queued[] = [];
        const sent = new Map<string, number[]>();
        const send = (e: Queued) => {
          if (e.key !== null) {
            expect(inFlight.some((f) => f.key === e.key), `two in flight on ${e.key}`).toBe(false);
            sent.set(e.key, [...(sent.get(e.key) ?? []), e.id]);
          }
          inFlight.push(e);
        };
        const settle = (e: Queued) => {
          inFlight.splice(inFlight.indexOf(e), 1);
          e.pending = false;
          if (e.key !== null && e.hasSuccessor) {
            const next = queued.find((q) => q.key === e.key && q.pending);
            if (next) send(next);
          }
        };
        for (const s of steps) {
          if (s.kind === 'settle') {
            if (inFlight.length > 0) settle(inFlight[s.pick % inFlight.length]);
            continue;
          }
          const pairs = s.pairs.map((p: { w: string; s: string | null }) => ({ webhookId: p.w, subjectId: p.s }));
          const waiting = new Set<string>();
          for (const p of pairs) {
            if (p.subjectId === null) continue;
            const key = chainKey(p.webhookId, p.subjectId);
            for (const q of queued) if (q.key === key && q.pending && !q.hasSuccessor) ((q.hasSuccessor = true), waiting.add(key));
          }
          const plans = planQueue(pairs, waiting);
          pairs.forEach((p: QueuedPair, i: number) => {
            const e: Queued = { id: queued.length, key: p.subjectId === null ? null : chainKey(p.webhookId, p.subjectId), pending: true, hasSuccessor: plans[i].hasSuccessor };
            queued.push(e);
            if (plans[i].head) send(e);
          });
        }
        while (inFlight.length > 0) settle(inFlight[0]);
        expect(queued.filter((q) => q.pending)).toEqual([]);
        for (const [key, ids] of sent) expect(ids, key).toEqual(queued.filter((q) => q.key === key).map((q) => q.id));
      }),
      { numRuns: 300 },
    );
  });
});
