import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sql } from '../../../db/sql.js';
import { readTableState, type RowChange, type Snapshot } from './change-log.js';

/*
 * Per API process and table: the last snapshot read from the change log, and the batches of
 * changes read since. Reads are chained, one at a time per table (a batch must start where the
 * previous one ended), and shared: requests arriving while a read runs wait for the next one,
 * which starts after they arrived, so a reader always sees the writes answered before it asked
 * (read-your-writes, on any process).
 */

/**
 * When a request arrived, on the process's tick of change-log reads: a read that started after
 * it (a later tick) sees every write answered before the request was made, so the request may
 * use it, running or done, instead of starting one of its own (the HTTP layer sets it per
 * request; without it, a request waits for a read started after its call, as before).
 */
export const requestArrival = new AsyncLocalStorage<number>();
let ticks = 0;
/** The tick of a request arriving now. */
export const arrivalTick = (): number => ++ticks;

/** How many recent batches are kept for results whose load overlapped them. */
const KEPT_BATCHES = 64;
/**
 * A table not read for this long starts over (its cached results are dropped): the change log
 * keeps changes for at least twice as long (CHANGES_RETENTION_MS), so a read within it never
 * misses one that was purged.
 */
export const RESYNC_AFTER_MS = 60_000;
export const CHANGES_RETENTION_MS = 2 * RESYNC_AFTER_MS;

export interface Batch {
  seq: number;
  changes: RowChange[];
}

export interface SyncedTable {
  /** Batches applied so far: a result loaded after this one must still take the later ones. */
  seq: number;
  total: number;
  publishedTotal: number;
  /** The change counters of the table (`t:`) and its project (`m:`) read by the same statement (HTTP caching). */
  counters: Readonly<Record<string, string>>;
}

interface TableFeed {
  snapshot: Snapshot | null;
  readAt: number;
  seq: number;
  batches: Batch[];
  state: SyncedTable;
  running: Promise<SyncedTable> | null;
  /** The tick the running read started at. */
  runningTick: number;
  /** The last read done, and the tick it started at. */
  done: { tick: number; state: SyncedTable } | null;
  next: Promise<SyncedTable> | null;
}

export interface SyncListener {
  /** A new batch of committed changes (empty batches are not reported). */
  onBatch(tableId: string, batch: Batch): void;
  /** The table starts over: nothing cached for it may be served any more. */
  onReset(tableId: string): void;
}

export class TableSync {
  private readonly feeds = new Map<string, TableFeed>();

  constructor(private readonly listener: SyncListener) {}

  /** Reads the table's changes committed up to now, applies them, and answers its totals. */
  sync(sql: Sql, tableId: string): Promise<SyncedTable> {
    let feed = this.feeds.get(tableId);
    if (!feed) {
      feed = { snapshot: null, readAt: 0, seq: 0, batches: [], state: { seq: 0, total: 0, publishedTotal: 0, counters: {} }, running: null, runningTick: 0, done: null, next: null };
      this.feeds.set(tableId, feed);
    }
    const f = feed;
    const arrived = requestArrival.getStore();
    if (arrived !== undefined) {
      // A done read is taken before a running one: both started after the request arrived, and
      // the done one is there now (a list's second call, after its ETag's, waited for another
      // request's read under load, up to one read longer).
      if (f.done && f.done.tick > arrived) return Promise.resolve(f.done.state);
      if (f.running && f.runningTick > arrived) return f.running;
    }
    if (!f.running) return this.start(sql, tableId, f);
    if (!f.next) {
      const after = f.running.catch(() => undefined);
      f.next = after.then(() => {
        f.next = null;
        return this.start(sql, tableId, f);
      });
    }
    return f.next;
  }

  /** The batches after `seq`, or null when some of them are no longer kept. */
  batchesSince(tableId: string, seq: number): Batch[] | null {
    const feed = this.feeds.get(tableId);
    if (!feed) return null;
    if (feed.seq === seq) return [];
    const batches = feed.batches.filter((b) => b.seq > seq);
    const missing = feed.seq - seq - batches.length;
    return missing === 0 ? batches : null;
  }

  private start(sql: Sql, tableId: string, feed: TableFeed): Promise<SyncedTable> {
    const tick = ++ticks;
    const run = this.read(sql, tableId, feed)
      .then((state) => {
        if (!feed.done || feed.done.tick < tick) feed.done = { tick, state };
        return state;
      })
      .finally(() => {
        if (feed.running === run) feed.running = null;
      });
    feed.running = run;
    feed.runningTick = tick;
    return run;
  }

  private async read(sql: Sql, tableId: string, feed: TableFeed): Promise<SyncedTable> {
    const now = performance.now();
    if (feed.snapshot && now - feed.readAt > RESYNC_AFTER_MS) {
      feed.snapshot = null;
      feed.batches = [];
      feed.seq++;
      this.listener.onReset(tableId);
    }
    const state = await readTableState(sql, tableId, feed.snapshot);
    if (!feed.snapshot) {
      // A first read: results cached before it (if any) cannot be brought up to date.
      this.listener.onReset(tableId);
    } else if (state.changes.length > 0) {
      feed.seq++;
      const batch = { seq: feed.seq, changes: state.changes };
      feed.batches.push(batch);
      if (feed.batches.length > KEPT_BATCHES) feed.batches.shift();
      this.listener.onBatch(tableId, batch);
    }
    feed.snapshot = state.snapshot;
    feed.readAt = now;
    feed.state = { seq: feed.seq, total: state.total, publishedTotal: state.publishedTotal, counters: state.counters };
    return feed.state;
  }
}
