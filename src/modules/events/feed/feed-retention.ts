import type { Sql } from '../../../db/sql.js';
import { trimEventFeed } from './feed.sql.js';

/** docs/realtime.md#resuming: the feed keeps at least this long... */
export const FEED_RETENTION_HOURS = 24;
/** ...and at least this many of each project's newest events, whichever is more. */
export const FEED_RETENTION_EVENTS = 10_000;

/** Deletes up to `batch` events that neither rule keeps; answers how many went. */
export async function trimFeed(sql: Sql, batch: number, hours = FEED_RETENTION_HOURS, keep = FEED_RETENTION_EVENTS): Promise<number> {
  const [{ deleted }] = await sql<{ deleted: number }>(trimEventFeed(hours, keep, batch));
  return deleted;
}
