import type { Sql } from '../../../db/sql.js';
import { deleteChangesBefore, oldestRunningXid, tableState } from './list-cache.sql.js';

/*
 * Reading the change log (migration Migration20261125010000_contents_changes): the rows of
 * `contents` changed by transactions that committed after a snapshot of ours. Visibility, not
 * a sequence number, says what is new: ids are taken when a transaction starts and commits
 * land in another order, so "every id above the last one seen" would skip a slow writer.
 */

/** A row as the change log records it (timestamps in the cursors' UTC microsecond form). */
export interface RowImage {
  id: string;
  status: string;
  slug: string | null;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  publishAt: string | null;
  /** Absent from images logged before versions were (migration ..._version_image): unknown then. */
  version?: number;
  /** Absent from images logged before drafts existed (migration ..._drafts): none then. */
  hasDraft?: boolean;
  data: Record<string, unknown>;
}

/** Change-log timestamps (microseconds) in the wire form of a read (milliseconds, truncated); undefined when malformed. */
const CHANGE_LOG_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const wireInstant = (text: string | null): string | null | undefined =>
  text === null ? null : CHANGE_LOG_INSTANT.test(text) ? `${text.slice(0, 23)}Z` : undefined;

/** One changed row: `old` null when created, `new` null when deleted; both null: anything may have changed. */
export interface RowChange {
  xid: number;
  old: RowImage | null;
  new: RowImage | null;
}

/** A PostgreSQL snapshot (`xmin:xmax:xip,...`): what a statement could see. */
export interface Snapshot {
  text: string;
  xmin: number;
  xmax: number;
  running: ReadonlySet<number>;
}

const asXid = (text: string): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`transaction id out of range: ${text}`);
  return n;
};

export function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, xip] = text.split(':');
  return { text, xmin: asXid(xmin), xmax: asXid(xmax), running: new Set(xip ? xip.split(',').map(asXid) : []) };
}

/** Whether the transaction `xid` had committed for `snapshot` (as `pg_visible_in_snapshot`, for committed ids). */
export const visibleIn = (xid: number, snapshot: Snapshot): boolean =>
  xid < snapshot.xmin || (xid < snapshot.xmax && !snapshot.running.has(xid));

export interface TableState {
  snapshot: Snapshot;
  /** Rows of the table, all statuses and PUBLISHED only: the unfiltered totals. */
  total: number;
  publishedTotal: number;
  /** Committed since the snapshot given (none on the first read). */
  changes: RowChange[];
  /** The change counters of the table and of its project at the snapshot (absent: never changed). */
  counters: Record<string, string>;
}

/**
 * One statement: the table's totals, a new snapshot, and the changes it sees that `since` did
 * not. The snapshot and the rows are the same statement's, so nothing can slip between them.
 */
export async function readTableState(sql: Sql, tableId: string, since: Snapshot | null): Promise<TableState> {
  const [row] = await sql<{
    snapshot: string;
    total: string | null;
    published: string | null;
    changes: [string, RowImage | null, RowImage | null][] | null;
    counters: Record<string, string> | null;
  }>(
    tableState(tableId, since),
  );
  return {
    snapshot: parseSnapshot(row.snapshot),
    total: Number(row.total ?? 0),
    publishedTotal: Number(row.published ?? 0),
    changes: (row.changes ?? []).map(([xid, old, next]) => ({ xid: asXid(xid), old, new: next })),
    counters: row.counters ?? {},
  };
}

/**
 * Deletes the changes of transactions that had ended before `horizon` (an xmin read at least a
 * retention period ago): every reader that has read its table since then has seen them.
 */
export async function deleteSeenChanges(sql: Sql, horizon: number): Promise<number> {
  const rows = await sql<{ n: string }>(deleteChangesBefore(horizon));
  return Number(rows[0].n);
}

/** The oldest transaction still running (or the next to start): the horizon to keep for later. */
export async function currentXmin(sql: Sql): Promise<number> {
  const [row] = await sql<{ xmin: string }>(oldestRunningXid());
  return asXid(row.xmin);
}
