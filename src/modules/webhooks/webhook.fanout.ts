import type { DomainEvent } from '../../jobs/outbox.js';

/** What fan-out needs to know of an active webhook. */
export interface Subscription {
  id: string;
  projectId: string;
  events: string[];
  /** Narrows contents events to these tables; empty = every table. */
  tableIds: string[];
}

/** SPEC §8: the event's type (or `*`) is subscribed, and `tableIds` narrows contents events only. */
export function subscribes(hook: Subscription, event: DomainEvent): boolean {
  if (hook.projectId !== event.projectId) return false;
  if (!hook.events.includes('*') && !hook.events.includes(event.type)) return false;
  if (hook.tableIds.length === 0 || !event.type.startsWith('contents.')) return true;
  return event.tableId !== null && hook.tableIds.includes(event.tableId);
}

/** Every (event, webhook) pair to deliver, in event order. */
export const matchSubscriptions = (events: DomainEvent[], hooks: Subscription[]) =>
  events.flatMap((event) => hooks.filter((hook) => subscribes(hook, event)).map((hook) => ({ event, webhookId: hook.id })));

/** The delivered body (SPEC §8): the event without its internal `tableId`. */
export const payloadOf = (event: DomainEvent): string =>
  JSON.stringify({ id: event.id, type: event.type, projectId: event.projectId, createdAt: event.createdAt, data: event.data });
