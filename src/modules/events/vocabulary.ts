import { uuidv7 } from '../../shared/ids.js';

/*
 * The events of a project (docs/webhooks.md#what-a-delivery-looks-like): what changed, as webhooks and realtime
 * streams receive it. Every writer builds its events here and records them with `emitEvents`
 * (outbox.ts); the relay hands them to the subscribers (webhooks, the realtime feed).
 */

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
  /** Narrows contents events to subscribers that list this table (`tableIds`). */
  tableId: string | null;
  createdAt: string;
  /**
   * The outbox's `seq`, set when the relay takes the event: per row (file, table), increasing in
   * commit order. Absent until then.
   */
  sequence?: number;
  data: object;
}

export const newEvent = (type: EventType, projectId: string, tableId: string | null, data: object): DomainEvent => ({
  id: uuidv7(),
  type,
  projectId,
  tableId,
  createdAt: new Date().toISOString(),
  data,
});

/**
 * Whether a subscriber of `types` (empty or `*`: every type) and `tableIds` (empty: every table)
 * takes `event`: webhooks and streams filter alike. `tableIds` narrows contents events only.
 */
export function selectsEvent(filter: { types: readonly string[]; tableIds: readonly string[] }, event: DomainEvent): boolean {
  if (filter.types.length > 0 && !filter.types.includes('*') && !filter.types.includes(event.type)) return false;
  if (filter.tableIds.length === 0 || !event.type.startsWith('contents.')) return true;
  return event.tableId !== null && filter.tableIds.includes(event.tableId);
}
