import type pg from 'pg';
import { sqlOn } from '../../src/db/sql.js';
import { purgeRevisions } from '../../src/modules/contents/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** How often revisions past REVISIONS_PER_ROW are looked for. */
const INTERVAL_MS = 5_000;
/** How far back the first look goes (a worker that was down catches up on a day of changes). */
const FIRST_LOOK_MS = 24 * 3600_000;
/** Overlap between looks: a revision committed late is still seen. */
const OVERLAP_MS = 60_000;

/**
 * Retention (docs/contents.md#revisions): keeps the newest `keep` revisions of each row. Each look covers the rows
 * that got a revision since the previous look (less an overlap for slow commits), so the purge
 * never scans all revisions, and the request path never waits for it.
 */
export function startRevisionRetention(pool: pg.Pool, keep: number, logger: Logger): { stop(): Promise<void> } {
  const sql = sqlOn(pool);
  let since = new Date(Date.now() - FIRST_LOOK_MS);
  return startLoop(
    async () => {
      const started = Date.now();
      const deleted = await purgeRevisions(sql, keep, since);
      since = new Date(started - OVERLAP_MS);
      if (deleted > 0) logger.debug({ deleted }, 'purged old revisions');
      return { full: false };
    },
    INTERVAL_MS,
    logger,
  );
}
