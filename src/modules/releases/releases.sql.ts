import type { SqlQuery } from '../../db/sql.js';

/* Releases and their items (docs/releases.md), as plain statements on the pool or a transaction. */

export interface ReleaseRow {
  id: string;
  project_id: string;
  name: string;
  status: 'open' | 'published';
  publish_at: Date | null;
  published_at: Date | null;
  failure: { code: string; message: string } | null;
  created_at: Date;
  updated_at: Date;
}

export interface ReleaseItemRow {
  id: string;
  release_id: string;
  table_id: string;
  row_id: string;
  action: ReleaseAction;
  created_at: Date;
}

export const RELEASE_ACTIONS = ['publish', 'unpublish', 'publishDraft'] as const;
export type ReleaseAction = (typeof RELEASE_ACTIONS)[number];

const RELEASE_FIELDS = 'id, project_id, name, status, publish_at, published_at, failure, created_at, updated_at';
const ITEM_FIELDS = 'id, release_id, table_id, row_id, action, created_at';

export const insertRelease = (id: string, projectId: string, name: string, publishAt: Date | null): SqlQuery => ({
  text: `insert into release (id, project_id, name, publish_at) values ($1, $2, $3, $4) returning ${RELEASE_FIELDS}`,
  values: [id, projectId, name, publishAt],
});

/** One page of a project's releases, newest first (`limit` may ask one more, for `hasNext`). */
export const releasesOf = (projectId: string, limit: number, offset: number): SqlQuery => ({
  text: `select ${RELEASE_FIELDS} from release where project_id = $1 order by id desc limit $2 offset $3`,
  values: [projectId, limit, offset],
});

export const countReleases = (projectId: string): SqlQuery => ({
  text: 'select count(*)::int as total from release where project_id = $1',
  values: [projectId],
});

/** A release of the project; `lock` takes it for the publish (a second publisher waits, then sees it published). */
export const releaseOf = (projectId: string, releaseId: string, lock = false): SqlQuery => ({
  text: `select ${RELEASE_FIELDS} from release where project_id = $1 and id = $2${lock ? ' for update' : ''}`,
  values: [projectId, releaseId],
});

/** Renames or (re)schedules an open release; a new schedule clears a failed one's failure. Null once published. */
export const updateOpenRelease = (releaseId: string, name: string | null, schedule: { publishAt: Date | null } | null): SqlQuery => ({
  text: `update release set name = coalesce($2, name),
                publish_at = case when $3 then $4 else publish_at end,
                failure = case when $3 then null else failure end,
                updated_at = now()
          where id = $1 and status = 'open' returning ${RELEASE_FIELDS}`,
  values: [releaseId, name, schedule !== null, schedule?.publishAt ?? null],
});

export const deleteOpenRelease = (releaseId: string): SqlQuery => ({
  text: `delete from release where id = $1 and status = 'open' returning id`,
  values: [releaseId],
});

export const itemsOf = (releaseId: string): SqlQuery => ({
  text: `select ${ITEM_FIELDS} from release_item where release_id = $1 order by created_at, id`,
  values: [releaseId],
});

/** Refused by `release_item_open_row` when the row is in another open release (409). */
export const insertItem = (id: string, releaseId: string, tableId: string, rowId: string, action: ReleaseAction): SqlQuery => ({
  text: `insert into release_item (id, release_id, table_id, row_id, action) values ($1, $2, $3, $4, $5) returning ${ITEM_FIELDS}`,
  values: [id, releaseId, tableId, rowId, action],
});

export const deleteItem = (releaseId: string, itemId: string): SqlQuery => ({
  text: 'delete from release_item where release_id = $1 and id = $2 returning id',
  values: [releaseId, itemId],
});

/** The open release a row is in, if any. */
export const openReleaseOfRow = (rowId: string): SqlQuery => ({
  text: 'select release_id from release_item where row_id = $1 and open',
  values: [rowId],
});

/** Marks the release published and frees its rows for other releases. */
export const markPublished = (releaseId: string): SqlQuery => ({
  text: `with items as (update release_item set open = false where release_id = $1)
         update release set status = 'published', published_at = now(), updated_at = now(), failure = null
          where id = $1 returning ${RELEASE_FIELDS}`,
  values: [releaseId],
});

/**
 * Due scheduled releases, taken for the publish: `skip locked` lets two publishers share them,
 * and a release one of them has published is no longer `open` for the other.
 */
export const dueReleases = (batch: number): SqlQuery => ({
  text: `select ${RELEASE_FIELDS} from release where status = 'open' and publish_at <= now()
          order by publish_at limit $1 for update skip locked`,
  values: [batch],
});

/**
 * In how many ms the next scheduled release comes due (null: none): the publisher wakes for it
 * rather than at its next poll. Only releases not due at the transaction's start count: a due one
 * that another publisher holds is not waited for again and again.
 */
export const msUntilNextRelease = (): SqlQuery => ({
  text: `select (extract(epoch from min(publish_at) - clock_timestamp()) * 1000)::float8 as ms
           from release where status = 'open' and publish_at > now()`,
  values: [],
});

/** A scheduled release that failed: kept open, no longer scheduled, the failure recorded. */
export const markFailed = (releaseId: string, failure: { code: string; message: string }): SqlQuery => ({
  text: 'update release set publish_at = null, failure = $2, updated_at = now() where id = $1',
  values: [releaseId, JSON.stringify(failure)],
});

/** The current state of rows: status, version and whether a draft is pending. */
export const rowStates = (rowIds: string[]): SqlQuery => ({
  text: 'select id, status, version, draft is not null as has_draft from contents where id = any($1::uuid[])',
  values: [rowIds],
});

/** What a write needs of a project (ProjectInfo), for the scheduled publisher. */
export const projectInfoOf = (projectId: string): SqlQuery => ({
  text: 'select id, workspace_id as "workspaceId", locales, default_locale as "defaultLocale" from project where id = $1',
  values: [projectId],
});
