import type { Options } from '@mikro-orm/postgresql';
import pg from 'pg';
import { openOrm, type Orm } from './orm.js';

/** Any constant shared by every process of the system; only used for this lock. */
const MIGRATION_LOCK = 7261000;

/**
 * Opens the ORM and applies pending migrations under a session advisory lock, so that API and
 * worker processes starting together on one database migrate it exactly once.
 */
export async function openMigratedOrm(config: Options): Promise<Orm> {
  const lock = new pg.Client({ connectionString: config.clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await openOrm(config, { migrate: true });
  } finally {
    await lock.end().catch(() => {});
  }
}
