import type pg from 'pg';
import { conflict, notFound } from '../../errors/app-error.js';
import { sqlOn, transaction } from '../../db/sql.js';
import { paginationOf, wantsCount, type PageParams } from '../../shared/pagination.js';
import { uuidv7 } from '../../shared/ids.js';
import { CountChanges, findRow, type PlannedChange, type WriteScope, type ContentsRow } from '../contents/index.js';
import type { TableDef } from '../tables/table-def.js';
import { dryRun, publishLockedRelease, type ScopeOf } from './releases.publish.js';
import {
  countReleases,
  deleteItem,
  deleteOpenRelease,
  insertItem,
  insertRelease,
  itemsOf,
  openReleaseOfRow,
  releaseOf,
  releasesOf,
  rowStates,
  updateOpenRelease,
  type ReleaseAction,
  type ReleaseItemRow,
  type ReleaseRow,
} from './releases.sql.js';
import type { AddItemInput, CreateReleaseInput, ReleaseOutput, UpdateReleaseInput } from './releases.schema.js';

/* Releases (docs/releases.md): rows published together, by request or at `publishAt`. */

const iso = (t: Date | null) => (t === null ? null : new Date(t).toISOString());

export const toReleaseOutput = (row: ReleaseRow): ReleaseOutput => ({
  id: row.id,
  name: row.name,
  status: row.status,
  publishAt: iso(row.publish_at),
  publishedAt: iso(row.published_at),
  failure: row.failure,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});

/**
 * What a release needs of its caller, handed down by the router from the caller's project access
 * (access is decided before a module runs).
 */
export interface ReleaseCaller {
  pool: pg.Pool;
  projectId: string;
  /** Whether the caller holds a custom role: its rules are then checked when an item is added. */
  customRole: boolean;
  /** A table the caller may write (403 otherwise, 404 unknown): its definition and write scope. */
  table(idOrKey: string): Promise<{ definition: TableDef; writeScope(): WriteScope }>;
}

/** The caller's write scope of a table's rows: its rules and actor apply to every item. */
export const callerScopes =
  (caller: ReleaseCaller): ScopeOf =>
  async (tableId) =>
    (await caller.table(tableId)).writeScope();

export async function createRelease(pool: pg.Pool, projectId: string, input: CreateReleaseInput): Promise<ReleaseRow> {
  const publishAt = input.publishAt ? new Date(input.publishAt) : null;
  const [row] = await sqlOn(pool)<ReleaseRow>(insertRelease(uuidv7(), projectId, input.name, publishAt));
  return row;
}

export async function listReleases(pool: pg.Pool, projectId: string, params: PageParams) {
  const sql = sqlOn(pool);
  const rows = await sql<ReleaseRow>(releasesOf(projectId, params.size + 1, (params.page - 1) * params.size));
  const total = wantsCount(params) ? (await sql<{ total: number }>(countReleases(projectId)))[0].total : null;
  return { list: rows.slice(0, params.size).map(toReleaseOutput), pagination: paginationOf(params, rows.length, total) };
}

export async function findRelease(pool: pg.Pool, projectId: string, releaseId: string): Promise<ReleaseRow> {
  const [row] = await sqlOn(pool)<ReleaseRow>(releaseOf(projectId, releaseId));
  if (!row) throw notFound('Release');
  return row;
}

const assertOpen = (release: ReleaseRow) => {
  if (release.status !== 'open') throw conflict(`Release ${release.id} is published: it cannot change any more`);
};

/** The release with its items, each with its row's current state and whether it would pass now. */
export async function readRelease(access: ReleaseCaller, release: ReleaseRow) {
  const pool = access.pool;
  const items = await sqlOn(pool)<ReleaseItemRow>(itemsOf(release.id));
  const states = await sqlOn(pool)<{ id: string; status: string; version: number; has_draft: boolean }>(rowStates(items.map((i) => i.row_id)));
  // A published release's items were applied: nothing is tried again.
  const problems = release.status === 'open' ? await dryRun(pool, callerScopes(access), release, items) : items.map(() => null);
  return {
    ...toReleaseOutput(release),
    items: items.map((item, index) => {
      const state = states.find((s) => s.id === item.row_id);
      const problem = problems[index];
      return {
        id: item.id,
        tableId: item.table_id,
        contentsId: item.row_id,
        action: item.action,
        createdAt: iso(item.created_at)!,
        current: state ? { status: state.status, version: state.version, hasDraft: state.has_draft } : null,
        wouldPass: problem === null,
        ...(problem ? { problem } : {}),
      };
    }),
  };
}

/** Renames an open release or sets its `publishAt` (null: unscheduled); 409 once published (docs/releases.md). */
export async function updateRelease(pool: pg.Pool, release: ReleaseRow, input: UpdateReleaseInput): Promise<ReleaseRow> {
  assertOpen(release);
  const schedule = input.publishAt === undefined ? null : { publishAt: input.publishAt === null ? null : new Date(input.publishAt) };
  const [row] = await sqlOn(pool)<ReleaseRow>(updateOpenRelease(release.id, input.name ?? null, schedule));
  if (!row) throw conflict(`Release ${release.id} is published: it cannot be changed`);
  return row;
}

export async function deleteRelease(pool: pg.Pool, release: ReleaseRow): Promise<void> {
  assertOpen(release);
  const [deleted] = await sqlOn(pool)<{ id: string }>(deleteOpenRelease(release.id));
  if (!deleted) throw conflict(`Release ${release.id} is published: it cannot be deleted`);
}

/** What an item's action would change of the row, for the caller's rules (docs/roles.md#writes). */
function plannedChange(row: ContentsRow, action: ReleaseAction): PlannedChange {
  switch (action) {
    case 'publish':
      return { before: row, after: { ...row, status: 'PUBLISHED' } };
    case 'unpublish':
      return { before: row, after: { ...row, status: 'DRAFT' } };
    case 'publishDraft':
      return { before: row, after: row, publishes: true };
  }
}

/**
 * Adds a row to an open release: the table and row must exist (404), a custom role's rules must
 * let the caller make the change (403), and the row must be in no other open release (409).
 */
export async function addItem(access: ReleaseCaller, release: ReleaseRow, input: AddItemInput): Promise<ReleaseItemRow> {
  assertOpen(release);
  const tableAccess = await access.table(input.tableId);
  return transaction(access.pool, async (sql) => {
    const row = await findRow(sql, tableAccess.definition, input.contentsId);
    if (access.customRole) await tableAccess.writeScope().rules?.check(sql, plannedChange(row, input.action));
    const [open] = await sql<{ release_id: string }>(openReleaseOfRow(row.id));
    if (open) throw conflict(`contentsId: the row is already in the open release ${open.release_id}`);
    try {
      const [item] = await sql<ReleaseItemRow>(insertItem(uuidv7(), release.id, tableAccess.definition.id, row.id, input.action));
      return item;
    } catch (error) {
      // Another request added the row to an open release in between.
      if ((error as { code?: string }).code === '23505') throw conflict('contentsId: the row is already in another open release');
      throw error;
    }
  });
}

export async function removeItem(pool: pg.Pool, release: ReleaseRow, itemId: string): Promise<void> {
  assertOpen(release);
  const [deleted] = await sqlOn(pool)<{ id: string }>(deleteItem(release.id, itemId));
  if (!deleted) throw notFound('Release item');
}

/** Publishes a release now, with the caller's rules; a published one is 409. */
export async function publishRelease(access: ReleaseCaller, releaseId: string): Promise<ReleaseRow> {
  return transaction(access.pool, async (sql, client) => {
    const [release] = await sql<ReleaseRow>(releaseOf(access.projectId, releaseId, true));
    if (!release) throw notFound('Release');
    assertOpen(release);
    const counts = new CountChanges();
    const published = await publishLockedRelease(callerScopes(access), sql, client, release, counts);
    await counts.apply(sql);
    return published;
  });
}
