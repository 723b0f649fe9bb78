import type pg from 'pg';
import { transaction } from '../../src/db/sql.js';
import { CountChanges, nextScheduledContentsIn, publishDueContents } from '../../src/modules/contents/index.js';
import { nextReleaseIn, publishDueReleases } from '../../src/modules/releases/releases.schedule.js';
import type { TableDefinitions } from '../../src/modules/tables/table-definitions.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** Rows published per transaction. */
const BATCH = 100;
/**
 * How often the due rows are looked for when nothing is known to come due sooner: a release or
 * row scheduled at least this long ahead is waited for to the millisecond (the step reports its
 * time), one scheduled closer than that is found by the next poll, within this interval
 * (docs/releases.md#scheduling, docs/contents.md#statuses).
 */
const INTERVAL_MS = 1000;

/**
 * SCHEDULED contents become PUBLISHED once their `publishAt` has passed, firing
 * `contents.published` (docs/contents.md#statuses). The publisher reads the rows themselves (an index on
 * `publish_at` of SCHEDULED rows) with `skip locked`, so several workers share the work, and each
 * row is published in the same transaction as its count change and event (`publishDueContents`).
 * Due releases are published in the same loop, each in the same transaction (`publishDueReleases`).
 * The count changes of both are applied last, together (CountChanges: counter rows taken in one
 * order at the end, so this transaction and a release published by request never deadlock).
 */
export function startScheduledPublisher(pool: pg.Pool, tables: TableDefinitions, logger: Logger): { stop(): Promise<void> } {
  const publishDue = () =>
    transaction(pool, async (sql, client) => {
      const counts = new CountChanges();
      const published = await publishDueContents(sql, client, tables, BATCH, counts);
      if (published > 0) logger.info({ published }, 'published scheduled contents');
      // Scheduled releases from the same loop (docs/releases.md#scheduling).
      const releases = await publishDueReleases(sql, client, pool, tables, BATCH, counts);
      if (releases > 0) logger.info({ releases }, 'published scheduled releases');
      await counts.apply(sql);
      // The next publishAt, of either: the loop wakes then if it is sooner than the next poll.
      const next = [await nextScheduledContentsIn(sql), await nextReleaseIn(sql)].filter((ms) => ms !== null);
      return { full: published === BATCH || releases === BATCH, nextInMs: next.length > 0 ? Math.min(...next) : null };
    });
  return startLoop(publishDue, INTERVAL_MS, logger);
}
