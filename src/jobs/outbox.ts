import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';
import { uuidv7 } from '../shared/ids.js';
import { insertOutboxEvents } from './outbox.sql.js';
import type { QueueName } from './queues.js';

/** Where pg-boss writes a job: the caller's transaction, whichever way it was opened. */
export type OutboxDb = ReturnType<typeof fromKysely>;

/** The transaction of an entity manager inside `em.transactional`. */
export const outboxOfEm = (em: EntityManager): OutboxDb => fromKysely(em.getKysely());

/** The transaction of a plain pool client between `begin` and `commit`. */
export const outboxOfClient = (client: pg.PoolClient): OutboxDb => ({
  executeSql: async (text: string, values?: unknown[]) => ({ rows: (await client.query(text, values)).rows }),
});

/**
 * Sends a job through the caller's transaction (transactional outbox): the job exists if and
 * only if the surrounding change commits.
 */
export async function enqueue(db: OutboxDb, boss: PgBoss, queue: QueueName, data: object, options: SendOptions = {}): Promise<void> {
  await boss.send(queue, data, { ...options, db });
}

/** The event types of docs/webhooks.md. */
export const EVENT_TYPES = [
  'contents.created',
  'contents.updated',
  'contents.deleted',
  'contents.published',
  'contents.unpublished',
  /** One event for a whole import (docs/import-export.md#import): `{ tableId, count }`. */
  'contents.imported',
  'files.created',
  'files.updated',
  'files.deleted',
  'tables.created',
  'tables.updated',
  'tables.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One event as it is queued and, without `tableId`, delivered (docs/webhooks.md#what-a-delivery-looks-like). */
export interface DomainEvent {
  id: string;
  type: EventType;
  projectId: string;
  /** Narrows contents events to webhooks that list this table (`tableIds`). */
  tableId: string | null;
  createdAt: string;
  /**
   * The outbox's `seq`, set when the relay takes the event: per row (file, table), increasing in
   * commit order. Absent until then.
   */
  sequence?: number;
  data: object;
}

/**
 * Records events in the caller's transaction, in `event_outbox` (one cheap insert for all of
 * them); the outbox relay worker moves them into the pg-boss `events` queue. A change that rolls
 * back leaves no event; a committed one is delivered even if this process dies right after.
 */
export async function emitEvents(db: OutboxDb, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  const query = insertOutboxEvents(events.map((e) => e.id), events.map((e) => JSON.stringify(e)));
  await db.executeSql(query.text, query.values);
}

/**
 * docs/webhooks.md and docs/realtime.md#the-stream: whether a subscriber of `types` (empty or `*`: every type) and `tableIds`
 * (empty: every table) takes `event`. `tableIds` narrows contents events only.
 */
export function selectsEvent(filter: { types: readonly string[]; tableIds: readonly string[] }, event: DomainEvent): boolean {
  if (filter.types.length > 0 && !filter.types.includes('*') && !filter.types.includes(event.type)) return false;
  if (filter.tableIds.length === 0 || !event.type.startsWith('contents.')) return true;
  return event.tableId !== null && filter.tableIds.includes(event.tableId);
}

export const newEvent = (type: EventType, projectId: string, tableId: string | null, data: object): DomainEvent => ({
  id: uuidv7(),
  type,
  projectId,
  tableId,
  createdAt: new Date().toISOString(),
  data,
});
