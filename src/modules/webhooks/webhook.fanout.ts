import { selectsEvent, type DomainEvent } from '../events/vocabulary.js';
import { isUuid } from '../../shared/ids.js';

/** What fan-out needs to know of an active webhook. */
export interface Subscription {
  id: string;
  projectId: string;
  events: string[];
  /** Narrows contents events to these tables; empty = every table. */
  tableIds: string[];
}

/** The event's type (or `*`) is subscribed, and `tableIds` narrows contents events only. */
export function subscribes(hook: Subscription, event: DomainEvent): boolean {
  // A webhook lists at least one type (or `*`): an empty list would be every type to selectsEvent.
  return hook.projectId === event.projectId && hook.events.length > 0 && selectsEvent({ types: hook.events, tableIds: hook.tableIds }, event);
}

/** Every (event, webhook) pair to deliver, in event order. */
export const matchSubscriptions = (events: DomainEvent[], hooks: Subscription[]) =>
  events.flatMap((event) => hooks.filter((hook) => subscribes(hook, event)).map((hook) => ({ event, webhookId: hook.id })));

/**
 * The delivered body (docs/webhooks.md#what-a-delivery-looks-like): the event without its internal `tableId`, with its `sequence`
 * (the ordering key receivers may sort one row's events by).
 */
export const payloadOf = (event: DomainEvent): string =>
  JSON.stringify({ id: event.id, type: event.type, projectId: event.projectId, createdAt: event.createdAt, sequence: event.sequence, data: event.data });

/**
 * What an event is about: the contents row, file or table whose id is `data.id`. The events of
 * one subject reach each webhook in order; null (no id) = delivered on its own.
 */
export function subjectOf(event: DomainEvent): string | null {
  const id = (event.data as { id?: unknown }).id;
  return typeof id === 'string' && isUuid(id) ? id.toLowerCase() : null;
}

/** A chain: the events of one subject for one webhook, delivered one after the other. */
export const chainKey = (webhookId: string, subjectId: string) => `${webhookId}:${subjectId}`;

export interface QueuedPair {
  webhookId: string;
  subjectId: string | null;
}

export interface QueuePlan {
  /** Sent now (a delivery job): the first of its chain with nothing pending before it. */
  head: boolean;
  /** A later event of its chain, queued in the same batch, waits behind it. */
  hasSuccessor: boolean;
}

/**
 * How a batch of new (event, webhook) pairs, in sequence order, joins the chains: per chain, the
 * first pair is sent at once unless its chain still has a pending event (`waiting`: chain keys
 * whose pending tail this batch queued behind); every other pair waits for the one before it,
 * which is marked as having a successor. Pairs without a subject are all sent at once.
 */
export function planQueue(pairs: readonly QueuedPair[], waiting: ReadonlySet<string>): QueuePlan[] {
  const plans: QueuePlan[] = pairs.map(() => ({ head: true, hasSuccessor: false }));
  const last = new Map<string, number>();
  pairs.forEach((pair, i) => {
    if (pair.subjectId === null) return;
    const key = chainKey(pair.webhookId, pair.subjectId);
    const before = last.get(key);
    if (before !== undefined) plans[before].hasSuccessor = true;
    plans[i].head = before === undefined && !waiting.has(key);
    last.set(key, i);
  });
  return plans;
}
