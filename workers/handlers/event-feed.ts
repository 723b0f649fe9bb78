import type pg from 'pg';
import { sqlOn } from '../../src/db/sql.js';
import { trimFeed } from '../../src/modules/events/feed/feed-retention.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** How often the realtime feed is trimmed. */
const INTERVAL_MS = 60_000;
const BATCH = 10_000;

/** Retention of the realtime feed (docs/realtime.md#resuming): a day and the last 10,000 events of each project, whichever is more. */
export function startFeedRetention(pool: pg.Pool, logger: Logger): { stop(): Promise<void> } {
  const sql = sqlOn(pool);
  return startLoop(
    async () => {
      const deleted = await trimFeed(sql, BATCH);
      if (deleted > 0) logger.debug({ deleted }, 'trimmed the event feed');
      return { full: deleted === BATCH };
    },
    INTERVAL_MS,
    logger,
  );
}
