import type pg from 'pg';
import { AppError, notFound } from '../../errors/app-error.js';
import { savepoint, type Sql } from '../../db/sql.js';
import { CountChanges } from '../contents/index.js';
import type { TableDefinitions } from '../tables/table-definitions.js';
import type { ProjectInfo } from '../projects/project-directory.js';
import { publishLockedRelease, type ScopeOf } from './releases.publish.js';
import { dueReleases, markFailed, msUntilNextRelease, projectInfoOf, type ReleaseRow } from './releases.sql.js';

/** The scheduler's write scope: no caller, so no rules; the table as defined. */
function schedulerScopes(pool: pg.Pool, tables: TableDefinitions, project: ProjectInfo): ScopeOf {
  return async (tableId) => {
    const table = await tables.get(project.id, tableId);
    if (!table) throw notFound('Table');
    return { pool, table, project, tables: (id) => tables.get(project.id, id), actor: null };
  };
}

/**
 * Publishes up to `batch` releases whose `publishAt` has passed, in the caller's transaction on
 * `client` (docs/releases.md#scheduling). The due releases are taken `for update skip locked`: two
 * publishers never take the same one, and once published it is no longer due. A release whose
 * publish fails is rolled back to its savepoint, kept open and unscheduled, its failure recorded.
 * The published rows' count changes are added to `counts`, which the caller applies before its
 * commit. Answers how many were published.
 */
export async function publishDueReleases(sql: Sql, client: pg.PoolClient, pool: pg.Pool, tables: TableDefinitions, batch: number, counts: CountChanges): Promise<number> {
  const due = await sql<ReleaseRow>(dueReleases(batch));
  let published = 0;
  for (const release of due) {
    const [project] = await sql<ProjectInfo>(projectInfoOf(release.project_id));
    await sql(savepoint('savepoint', 'release'));
    // Its own until it is kept: a release rolled back takes its count changes with it.
    const own = new CountChanges();
    try {
      await publishLockedRelease(schedulerScopes(pool, tables, project), sql, client, release, own);
      await sql(savepoint('release savepoint', 'release'));
      counts.merge(own);
      published++;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await sql(savepoint('rollback to savepoint', 'release'));
      await sql(markFailed(release.id, { code: error.errorCode, message: error.message }));
    }
  }
  return published;
}

/**
 * In how many ms the next scheduled release not due yet comes due; null when none is. The
 * publisher sleeps until then rather than to its next poll (docs/releases.md#scheduling).
 */
export async function nextReleaseIn(sql: Sql): Promise<number | null> {
  const [row] = await sql<{ ms: number | null }>(msUntilNextRelease());
  return row.ms;
}
