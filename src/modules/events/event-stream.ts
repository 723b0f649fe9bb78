import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors/app-error.js';
import { selectsEvent, type DomainEvent } from '../../jobs/outbox.js';
import { isUuid } from '../../shared/ids.js';
import type { EventFeed } from './event-feed.js';
import { feedPositionOf, projectFeedAfter } from './event-feed.sql.js';
import { FeedEntry } from './feed-entry.js';

/** Events read per statement when a stream replays what it missed. */
const REPLAY_BATCH = 500;
/**
 * Events a stream may have waiting for a client that does not read them: beyond, the stream
 * closes, and the client resumes from the feed when it catches up (SPEC §14).
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
  /** Read keys: public events only (SPEC §14). */
  publicOnly: boolean;
  filter: StreamFilter;
  /** The id of the last event the client received: the stream resumes right after it. */
  lastEventId?: string | null;
  signal: AbortSignal;
}

/** `reset`: the event to resume after is no longer retained; what follows is live. */
export type StreamItem = { kind: 'event'; entry: FeedEntry } | { kind: 'reset' };

/** A client fell too far behind: 503, and it resumes with its last event id. */
const overflowed = () => new AppError(503, 'SERVICE_UNAVAILABLE', `More than ${MAX_QUEUED} events waited for this stream; reconnect to resume`);

/**
 * The one implementation behind `GET /v1/{projectId}/events/stream` and `events.subscribe`: the
 * project's events the caller may see and asked for, in feed order, in batches (what arrived
 * together goes out together). With `lastEventId`, the retained events after it come first, then
 * the live ones, with none lost or repeated in between: the live feed is buffered from before
 * the replay starts, and buffered entries the replay already covered are dropped by position.
 */
export async function* eventBatches(feed: EventFeed, sql: Sql, request: StreamRequest): AsyncGenerator<StreamItem[]> {
  const wanted = (event: DomainEvent, entry: FeedEntry) => selectsEvent(request.filter, event) && entry.envelope(request.publicOnly) !== null;
  const queue: FeedEntry[] = [];
  let overflow = false;
  let wake: (() => void) | null = null;
  const unsubscribe = feed.subscribe(request.projectId, request.filter.tableIds, (entries) => {
    for (const entry of entries) if (wanted(entry.event, entry)) queue.push(entry);
    if (queue.length > MAX_QUEUED) overflow = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  request.signal.addEventListener('abort', onAbort);
  try {
    let last = 0;
    if (request.lastEventId) {
      const [found] = isUuid(request.lastEventId) ? await sql<{ position: string }>(feedPositionOf(request.projectId, request.lastEventId.toLowerCase())) : [];
      if (!found) yield [{ kind: 'reset' }];
      else {
        last = Number(found.position);
        for (;;) {
          const rows = await sql<{ position: string; payload: DomainEvent }>(projectFeedAfter(request.projectId, last, REPLAY_BATCH));
          if (rows.length === 0 || request.signal.aborted) break;
          const entries = rows.map((row) => new FeedEntry(Number(row.position), row.payload));
          last = entries[entries.length - 1].position;
          const items = entries.filter((entry) => wanted(entry.event, entry)).map((entry) => ({ kind: 'event' as const, entry }));
          if (items.length > 0) yield items;
          if (rows.length < REPLAY_BATCH) break;
        }
      }
    }
    while (!request.signal.aborted) {
      if (overflow) throw overflowed();
      const ready = queue.splice(0).filter((entry) => entry.position > last);
      if (ready.length > 0) {
        last = ready[ready.length - 1].position;
        yield ready.map((entry) => ({ kind: 'event' as const, entry }));
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  } finally {
    unsubscribe();
    request.signal.removeEventListener('abort', onAbort);
  }
}
