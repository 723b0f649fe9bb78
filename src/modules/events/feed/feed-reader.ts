import type pg from 'pg';
import { listen, type Listener } from '../../../db/listener.js';
import { sqlOn } from '../../../db/sql.js';
import type { DomainEvent } from '../vocabulary.js';
import { EVENT_FEED_CHANNEL } from './feed.sql.js';
import type { Logger } from '../../../shared/logger.js';
import { feedAfter, feedHead } from './feed.sql.js';
import { FeedEntry } from '../stream/envelope.js';

/** Events read per statement. */
const READ_BATCH = 1_000;
/** A read without a notification, in case one was missed (a reconnect, a lost packet). */
const SAFETY_READ_MS = 1_000;

export type FeedListener = (entries: FeedEntry[]) => void;

/**
 * A project's subscribers: those of every table, and those narrowed to some tables by table. A
 * contents event reaches the first and its table's; any other event reaches all of them. So a
 * write to one table costs nothing for the subscribers of the others (`tableIds`, docs/realtime.md#the-stream).
 */
interface ProjectSubscribers {
  anyTable: Set<FeedListener>;
  byTable: Map<string, Set<FeedListener>>;
  narrowed: Set<FeedListener>;
}

/**
 * This process's view of the realtime feed (docs/realtime.md#how-it-works): one LISTEN connection and one read of
 * `event_feed` per relay notification, whatever the number of subscribers, and the new entries
 * handed to the subscribers of their project, in feed order.
 */
export class EventFeed {
  private position = 0;
  private readonly subscribers = new Map<string, ProjectSubscribers>();
  private reading: Promise<void> | null = null;
  private again = false;
  private listener: Listener | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Events read from the feed since start (Prometheus). */
  eventsRead = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const [head] = await sqlOn(this.pool)<{ position: string }>(feedHead);
    this.position = Number(head.position);
    this.listener = await listen(
      this.databaseUrl,
      EVENT_FEED_CHANNEL,
      {
        // The payload is the newest position appended: nothing to read when we are there already.
        onNotify: (payload) => {
          if (payload === undefined || Number(payload) > this.position) this.read();
        },
        onReconnect: () => this.read(),
      },
      this.logger,
    );
    this.timer = setInterval(() => this.read(), SAFETY_READ_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.listener?.close();
    await this.reading;
  }

  /** Streams subscribed in this process (each stream once, whatever its tables). */
  get subscriberCount(): number {
    let count = 0;
    for (const project of this.subscribers.values()) count += project.anyTable.size + project.narrowed.size;
    return count;
  }

  /** The newest position handed to subscribers. */
  get head(): number {
    return this.position;
  }

  /**
   * Calls `listener` with the later entries of the project, in order, until the returned function
   * is called: every entry, or with `tableIds` the contents events of those tables and every
   * other event.
   */
  subscribe(projectId: string, tableIds: readonly string[], listener: FeedListener): () => void {
    let project = this.subscribers.get(projectId);
    if (!project) this.subscribers.set(projectId, (project = { anyTable: new Set(), byTable: new Map(), narrowed: new Set() }));
    const { anyTable, byTable, narrowed } = project;
    if (tableIds.length === 0) anyTable.add(listener);
    else {
      narrowed.add(listener);
      for (const tableId of tableIds) {
        let set = byTable.get(tableId);
        if (!set) byTable.set(tableId, (set = new Set()));
        set.add(listener);
      }
    }
    return () => {
      anyTable.delete(listener);
      narrowed.delete(listener);
      for (const tableId of tableIds) {
        byTable.get(tableId)?.delete(listener);
        if (byTable.get(tableId)?.size === 0) byTable.delete(tableId);
      }
      if (anyTable.size === 0 && narrowed.size === 0 && this.subscribers.get(projectId) === project) this.subscribers.delete(projectId);
    };
  }

  /** Reads what is new; a read asked for during one runs right after it. */
  private read(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        try {
          await this.readAll();
        } catch (error) {
          this.logger.warn({ err: error }, 'could not read the event feed; reading again shortly');
        }
      } while (this.again);
      this.reading = null;
    })();
  }

  private async readAll(): Promise<void> {
    for (;;) {
      const rows = await sqlOn(this.pool)<{ position: string; payload: DomainEvent }>(feedAfter(this.position, READ_BATCH));
      if (rows.length === 0) return;
      const entries = rows.map((row) => new FeedEntry(Number(row.position), row.payload));
      this.position = entries[entries.length - 1].position;
      this.eventsRead += entries.length;
      this.dispatch(entries);
      if (rows.length < READ_BATCH) return;
    }
  }

  private dispatch(entries: FeedEntry[]): void {
    const byListener = new Map<FeedListener, FeedEntry[]>();
    const give = (listeners: Iterable<FeedListener> | undefined, entry: FeedEntry) => {
      for (const listener of listeners ?? []) {
        const given = byListener.get(listener);
        if (given) given.push(entry);
        else byListener.set(listener, [entry]);
      }
    };
    for (const entry of entries) {
      const project = this.subscribers.get(entry.event.projectId);
      if (!project) continue;
      give(project.anyTable, entry);
      const { type, tableId } = entry.event;
      give(type.startsWith('contents.') ? (tableId === null ? undefined : project.byTable.get(tableId)) : project.narrowed, entry);
    }
    for (const [listener, given] of byListener) {
      try {
        listener(given);
      } catch (error) {
        this.logger.error({ err: error }, 'an event feed subscriber failed');
      }
    }
  }
}
