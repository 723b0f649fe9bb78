import type pg from 'pg';
import { transaction } from '../../src/db/sql.js';
import { publishDueContents } from '../../src/modules/contents/index.js';
import { publishDueReleases } from '../../src/modules/releases/releases.schedule.js';
import type { TableDefinitions } from '../../src/modules/tables/table-definitions.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** Rows published per transaction. */
const BATCH = 100;
/** How often the due rows are looked for: docs/contents.md#statuses promises publication within about a second. */
const INTERVAL_MS = 1000;

/**
 * SCHEDULED contents become PUBLISHED once their `publishAt` has passed, firing
 * `contents.published` (docs/contents.md#statuses). The publisher reads the rows themselves (an index on
 * `publish_at` of SCHEDULED rows) with `skip locked`, so several workers share the work, and each
 * row is published in the same transaction as its count change and event (`publishDueContents`).
 * Due releases are published in the same loop, each in the same transaction (`publishDueReleases`).
 */
export function startScheduledPublisher(pool: pg.Pool, tables: TableDefinitions, logger: Logger): { stop(): Promise<void> } {
  const publishDue = () =>
    transaction(pool, async (sql, client) => {
      const published = await publishDueContents(sql, client, tables, BATCH);
      if (published > 0) logger.info({ published }, 'published scheduled contents');
      // Scheduled releases from the same loop (docs/releases.md#scheduling).
      const releases = await publishDueReleases(sql, client, pool, tables, BATCH);
      if (releases > 0) logger.info({ releases }, 'published scheduled releases');
      return { full: published === BATCH || releases === BATCH };
    });
  return startLoop(publishDue, INTERVAL_MS, logger);
}
