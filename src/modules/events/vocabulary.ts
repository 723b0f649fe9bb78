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
  /** One event per published release, after its rows' own (docs/releases.md): `{ releaseId, count }`. */
  'release.published',
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
  /**
   * On the last event of a row's update only (never delivered): the fields the update changed,
   * as they were before it — system fields by their wire name, columns under `data` (null: the
   * column had no value). The row before is `data` overlaid with them: a stream tells from it
   * whether the row was in a subscriber's view, and so whether it left that view
   * (docs/realtime.md#who-sees-what).
   */
  previous?: PreviousFields;
}

/** The values an update replaced (see `DomainEvent.previous`). */
export interface PreviousFields {
  [field: string]: unknown;
  data?: Record<string, unknown>;
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
export function selectsEvent(filter: { types: readonly string[]; tableIds: readonly string[] }, event: Pick<DomainEvent, 'type' | 'tableId'>): boolean {
  if (!selectsType(filter.types, event.type)) return false;
  if (filter.tableIds.length === 0 || !event.type.startsWith('contents.')) return true;
  return event.tableId !== null && filter.tableIds.includes(event.tableId);
}

/** Whether `types` (empty or `*`: every type) takes events of `type`. */
export const selectsType = (types: readonly string[], type: string): boolean => types.length === 0 || types.includes('*') || types.includes(type);
