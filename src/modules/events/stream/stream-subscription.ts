import type { Sql } from '../../../db/sql.js';
import { serviceUnavailable } from '../../../errors/app-error.js';
import { selectsEvent, type DomainEvent } from '../vocabulary.js';
import { isUuid } from '../../../shared/ids.js';
import type { EventFeed } from '../feed/feed-reader.js';
import { feedPositionOf, projectFeedAfter } from '../feed/feed.sql.js';
import { FeedEntry } from './envelope.js';

/** Events read per statement when a stream replays what it missed. */
const REPLAY_BATCH = 500;
/**
 * Events a stream may have waiting for a client that does not read them: beyond, the stream
 * closes, and the client resumes from the feed when it catches up (docs/realtime.md#who-sees-what).
 */
export const MAX_QUEUED = 10_000;

export interface StreamFilter {
  /** Event types; empty: every type. */
  types: readonly string[];
  /** Narrows contents events to these tables; empty: every table. */
  tableIds: readonly string[];
}

export interface StreamRequest {
  projectId: string;
  /** Read keys: public events only (docs/realtime.md#who-sees-what). */
  publicOnly: boolean;
  filter: StreamFilter;
  /** The id of the last event the client received: the stream resumes right after it. */
  lastEventId?: string | null;
  signal: AbortSignal;
}

/** `reset`: the event to resume after is no longer retained; what follows is live. */
export type StreamItem = { kind: 'event'; entry: FeedEntry } | { kind: 'reset' };

/** A client fell too far behind: 503, and it resumes with its last event id. */
const overflowed = () => serviceUnavailable(`More than ${MAX_QUEUED} events waited for this stream; reconnect to resume`);

/** Whether a stream shows `entry`: asked for, and visible to its credential. */
const wants = (request: StreamRequest, entry: FeedEntry) => selectsEvent(request.filter, entry.event) && entry.envelope(request.publicOnly) !== null;

/**
 * A stream's place on the live feed. It subscribes when constructed, so that every entry the feed
 * hands over from then on is kept (those the stream wants) until the stream reads it, however
 * late that is. It leaves the feed when the stream ends, when the request's signal aborts or on
 * `leave()`, whichever comes first: a stream that is never read (its client left before the
 * first read, or opening it failed further on) does not stay subscribed.
 */
class LiveBuffer {
  private queue: FeedEntry[] = [];
  private overflow = false;
  private wake: (() => void) | null = null;
  private unsubscribe: (() => void) | null;

  constructor(
    feed: EventFeed,
    private readonly request: StreamRequest,
  ) {
    this.unsubscribe = feed.subscribe(request.projectId, request.filter.tableIds, (entries) => this.receive(entries));
    if (request.signal.aborted) this.leave();
    else request.signal.addEventListener('abort', this.leave);
  }

  /** False once the stream left the feed: nothing more arrives. */
  get joined(): boolean {
    return this.unsubscribe !== null;
  }

  /** The buffered entries after feed position `after`, taken out; 503 once the buffer overflowed. */
  take(after: number): FeedEntry[] {
    if (this.overflow) throw overflowed();
    return this.queue.splice(0).filter((entry) => entry.position > after);
  }

  /** Resolves when entries arrive, or when the stream leaves the feed. */
  arrival(): Promise<void> {
    if (this.queue.length > 0 || this.overflow || !this.joined) return Promise.resolve();
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** Leaves the feed; more calls do nothing. */
  readonly leave = (): void => {
    if (!this.unsubscribe) return;
    this.unsubscribe();
    this.unsubscribe = null;
    this.request.signal.removeEventListener('abort', this.leave);
    this.queue = [];
    this.notify();
  };

  private receive(entries: FeedEntry[]): void {
    if (this.overflow) return;
    for (const entry of entries) if (wants(this.request, entry)) this.queue.push(entry);
    // Past the limit nothing more is kept: the stream ends with 503 at its next read.
    if (this.queue.length > MAX_QUEUED) {
      this.overflow = true;
      this.queue = [];
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/** A stream that has joined the feed: its batches, and `leave` for a stream that is given up unread. */
export interface JoinedStream {
  batches: AsyncGenerator<StreamItem[]>;
  leave(): void;
}

/**
 * The one implementation behind `GET /v1/{projectId}/events/stream` and `events.subscribe`: the
 * project's events the caller may see and asked for, in feed order, in batches (what arrived
 * together goes out together). The stream joins the live feed here, before this returns, so a
 * caller that announces the stream afterwards (SSE headers, tRPC `connected`) misses no event
 * written after the announcement. With `lastEventId`, the retained events after it come first,
 * then the live ones, with none lost or repeated in between: the live feed is buffered from
 * before the replay starts, and buffered entries the replay already covered are dropped by
 * position.
 */
export function joinEventStream(feed: EventFeed, sql: Sql, request: StreamRequest): JoinedStream {
  const live = new LiveBuffer(feed, request);
  return { batches: eventBatches(live, sql, request), leave: live.leave };
}

async function* eventBatches(live: LiveBuffer, sql: Sql, request: StreamRequest): AsyncGenerator<StreamItem[]> {
  try {
    let last = 0;
    if (request.lastEventId) {
      const [found] = isUuid(request.lastEventId) ? await sql<{ position: string }>(feedPositionOf(request.projectId, request.lastEventId.toLowerCase())) : [];
      if (!found) yield [{ kind: 'reset' }];
      else {
        last = Number(found.position);
        for (;;) {
          const rows = await sql<{ position: string; payload: DomainEvent }>(projectFeedAfter(request.projectId, last, REPLAY_BATCH));
          if (rows.length === 0 || !live.joined) break;
          const entries = rows.map((row) => new FeedEntry(Number(row.position), row.payload));
          last = entries[entries.length - 1].position;
          const items = entries.filter((entry) => wants(request, entry)).map((entry) => ({ kind: 'event' as const, entry }));
          if (items.length > 0) yield items;
          if (rows.length < REPLAY_BATCH) break;
        }
      }
    }
    while (live.joined) {
      const ready = live.take(last);
      if (ready.length > 0) {
        last = ready[ready.length - 1].position;
        yield ready.map((entry) => ({ kind: 'event' as const, entry }));
        continue;
      }
      await live.arrival();
    }
  } finally {
    live.leave();
  }
}
