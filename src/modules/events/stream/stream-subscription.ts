import type { Sql } from '../../../db/sql.js';
import { serviceUnavailable } from '../../../errors/app-error.js';
import { selectsEvent, selectsType, type DomainEvent, type EventType } from '../vocabulary.js';
import { isUuid } from '../../../shared/ids.js';
import type { EventFeed } from '../feed/feed-reader.js';
import { feedPositionOf, projectFeedAfter } from '../feed/feed.sql.js';
import { FeedEntry, type EventLens } from './envelope.js';

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

/**
 * Who reads a stream (docs/realtime.md#who-sees-what): what its caller may see of each event.
 * The events module knows no table, role or policy; the caller's access supplies this
 * (auth/stream-audience.ts).
 */
export interface StreamAudience {
  /** Answered at once: false only when the subscriber certainly receives nothing of `entry` (it is not buffered then). */
  mayReceive(entry: FeedEntry): boolean;
  /**
   * How the subscriber receives each of `entries` (null: not at all), decided together for one
   * batch, so that a batch costs at most one database round trip per condition to ask.
   */
  lenses(entries: readonly FeedEntry[]): Promise<(EventLens | null)[]>;
}

export interface StreamRequest {
  projectId: string;
  audience: StreamAudience;
  filter: StreamFilter;
  /** The id of the last event the client received: the stream resumes right after it. */
  lastEventId?: string | null;
  signal: AbortSignal;
}

/** `reset`: the event to resume after is no longer retained; what follows is live. */
export type StreamItem = { kind: 'event'; entry: FeedEntry; lens: EventLens } | { kind: 'reset' };

/** A client fell too far behind: 503, and it resumes with its last event id. */
const overflowed = () => serviceUnavailable(`More than ${MAX_QUEUED} events waited for this stream; reconnect to resume`);

/** Events a subscriber may receive as `contents.unpublished` instead: the row left its view (envelope.ts, LEFT_VIEW). */
const MAY_LEAVE: ReadonlySet<EventType> = new Set(['contents.updated', 'contents.published']);

/**
 * Whether a stream may show `entry`, before its audience decides how: its table asked for, its
 * type asked for (or `contents.unpublished`, which it may arrive as), and not certainly hidden
 * from the audience.
 */
function mayWant(request: StreamRequest, entry: FeedEntry): boolean {
  const { event } = entry;
  const asked =
    selectsEvent(request.filter, event) || (MAY_LEAVE.has(event.type) && selectsEvent(request.filter, { type: 'contents.unpublished', tableId: event.tableId }));
  return asked && request.audience.mayReceive(entry);
}

/** The entries the stream shows, each with its lens: the audience decides, then the type it arrives as must be asked for. */
async function shown(request: StreamRequest, entries: FeedEntry[]): Promise<StreamItem[]> {
  if (entries.length === 0) return [];
  const lenses = await request.audience.lenses(entries);
  const items: StreamItem[] = [];
  entries.forEach((entry, i) => {
    const lens = lenses[i];
    if (lens && selectsType(request.filter.types, entry.envelope(lens).type)) items.push({ kind: 'event', entry, lens });
  });
  return items;
}

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
    for (const entry of entries) if (mayWant(this.request, entry)) this.queue.push(entry);
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
          const items = await shown(request, entries.filter((entry) => mayWant(request, entry)));
          if (items.length > 0) yield items;
          if (rows.length < REPLAY_BATCH) break;
        }
      }
    }
    while (live.joined) {
      const ready = live.take(last);
      if (ready.length > 0) {
        last = ready[ready.length - 1].position;
        const items = await shown(request, ready);
        if (items.length > 0) yield items;
        continue;
      }
      await live.arrival();
    }
  } finally {
    live.leave();
  }
}
