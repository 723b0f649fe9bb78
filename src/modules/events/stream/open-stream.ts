import type pg from 'pg';
import { sqlOn } from '../../../db/sql.js';
import { invalidQuery, serviceUnavailable } from '../../../errors/app-error.js';
import { EVENT_TYPES } from '../vocabulary.js';
import type { EventFeed } from '../feed/feed-reader.js';
import { joinEventStream, type StreamAudience, type StreamFilter, type StreamItem } from './stream-subscription.js';
import { StreamRefused, StreamShutdown, type EventStreams, type StreamGrant } from './stream-registry.js';
import type { EventStreamInput } from '../events.schema.js';

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `types` and `tableIds` as the stream filters on: known types, the project's table ids (400 otherwise). */
/** `tables`: the project's tables by id or key (null when unknown). */
export async function parseStreamFilter(input: EventStreamInput, tables: (idOrKey: string) => Promise<{ id: string } | null>): Promise<StreamFilter> {
  // A blank list names nothing (as a blank `fields` on lists): refused, not taken as "every".
  for (const name of ['types', 'tableIds'] as const) {
    if (input[name] !== undefined && list(input[name]).length === 0) throw invalidQuery(`${name}: names nothing; leave the parameter out for every one`);
  }
  const types = list(input.types);
  const unknown = types.filter((type) => type !== '*' && !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) throw invalidQuery(`types: unknown event type(s) ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`);
  const tableIds: string[] = [];
  for (const idOrKey of list(input.tableIds)) {
    const table = await tables(idOrKey);
    if (!table) throw invalidQuery(`tableIds: no table "${idOrKey.slice(0, 100)}" in this project`);
    tableIds.push(table.id);
  }
  return { types, tableIds };
}

/**
 * Who a stream belongs to (auth/stream-access.ts): the credential it counts against
 * (REALTIME_MAX_STREAMS), the key of its recheck (streams that share it share one), the recheck
 * itself, which throws once the credential may no longer read the project, and what the owner
 * may see of each event.
 */
export interface StreamOwner {
  credentialId: string;
  recheckKey: string;
  recheck: () => Promise<unknown>;
  audience: StreamAudience;
  /** Called with what each recheck that passed answered (the access as it is now), so that a changed role applies. */
  renewed?: (checked: unknown) => void;
}

export interface OpenedStream {
  grant: StreamGrant;
  /** The stream's batches; read them once, then `close()`. */
  batches: AsyncIterable<StreamItem[]>;
  /**
   * Leaves the feed and releases the grant. More calls do nothing; it also runs by itself when
   * the stream ends (the client left, a recheck refused the credential, the server stops), so
   * that a stream never read does not stay open.
   */
  close(): Promise<void>;
}

/**
 * Opens a stream for a caller whose access to the project was checked: counts it against the
 * credential's limit (429), and ends it when the owner's recheck throws (access revoked), when `signal`
 * aborts (the client left) or when the server stops. The stream has joined the live feed when
 * this resolves: announce it to the client only then, and every later event reaches it.
 */
export async function openStream(
  deps: { feed: EventFeed; streams: EventStreams; pool: pg.Pool },
  { owner, ...opened }: { owner: StreamOwner; projectId: string; filter: StreamFilter; lastEventId?: string | null },
  signal: AbortSignal,
): Promise<OpenedStream> {
  const grant = await deps.streams.claim(owner.credentialId, owner.recheckKey, owner.recheck, owner.renewed);
  const ended = AbortSignal.any([signal, grant.signal]);
  const { batches, leave } = joinEventStream(deps.feed, sqlOn(deps.pool), { ...opened, audience: owner.audience, signal: ended });
  const close = async () => {
    ended.removeEventListener('abort', onEnd);
    leave();
    await grant.close();
  };
  const onEnd = () => void close();
  if (ended.aborted) onEnd();
  else ended.addEventListener('abort', onEnd);
  return { grant, batches, close };
}

/**
 * Why the server ended a stream, as the error its client gets: the refusal of a recheck (the
 * credential was revoked), or 503 when the server stops (clients reconnect and resume). Null
 * when the client left.
 */
export function endingOf(grant: StreamGrant): unknown {
  const reason: unknown = grant.signal.reason;
  if (reason instanceof StreamRefused) return reason.error;
  if (reason instanceof StreamShutdown) return serviceUnavailable('The server is stopping; reconnect to resume');
  return null;
}
