import type pg from 'pg';
import { sqlOn } from '../../src/db/sql.js';
import { CHANGES_RETENTION_MS, currentXmin, deleteSeenChanges } from '../../src/modules/contents/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** How often the horizon is read and the change log trimmed. */
const INTERVAL_MS = 15_000;

/**
 * The xmin readings of the last retention period. The horizon is the newest reading that is at
 * least CHANGES_RETENTION_MS old: every transaction below it ended before that reading, so any
 * API process that has read its table since (they read at least every RESYNC_AFTER_MS, or start
 * over) has seen its changes. Readings live in memory: a restarted worker deletes nothing for
 * one retention period, which is safe.
 */
export class Horizon {
  private readings: { at: number; xmin: number }[] = [];

  record(at: number, xmin: number): void {
    this.readings.push({ at, xmin });
  }

  /** The xmin below which changes may go, or null when no reading is old enough yet. */
  at(now: number): number | null {
    let newest = -1;
    while (newest + 1 < this.readings.length && now - this.readings[newest + 1].at >= CHANGES_RETENTION_MS) newest++;
    if (newest < 0) return null;
    // Older readings are never needed again; the newest old one stays the horizon until a later one ages.
    this.readings.splice(0, newest);
    return this.readings[0].xmin;
  }
}

/** Trims `contents_change` (the list caches' change log) to what an API process may still need. */
export function startChangeLogTrim(pool: pg.Pool, logger: Logger): { stop(): Promise<void> } {
  const horizon = new Horizon();
  const sql = sqlOn(pool);
  return startLoop(
    async () => {
      const now = performance.now();
      horizon.record(now, await currentXmin(sql));
      const below = horizon.at(now);
      if (below !== null) {
        const deleted = await deleteSeenChanges(sql, below);
        if (deleted > 0) logger.debug({ deleted }, 'trimmed the contents change log');
      }
      return { full: false };
    },
    INTERVAL_MS,
    logger,
  );
}
