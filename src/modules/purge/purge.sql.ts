import type { SqlQuery } from '../../db/sql.js';

/** What a purge job can name: every kind of soft delete. */
export type PurgeKind = 'workspace' | 'project' | 'table' | 'column';

const TABLE_OF: Record<PurgeKind, string> = {
  workspace: 'workspace',
  project: 'project',
  table: 'content_table',
  column: 'content_column',
};

/** One row if the thing is (still) soft-deleted: a replayed job must never touch live rows. */
export const stillDeleted = (kind: PurgeKind, id: string): SqlQuery => ({
  text: `select 1 from ${TABLE_OF[kind]} where id = $1 and deleted_at is not null`,
  values: [id],
});

/** Deletes the row of a workspace, project, table or column itself. */
export const deleteRow = (kind: PurgeKind, id: string): SqlQuery => ({
  text: `delete from ${TABLE_OF[kind]} where id = $1`,
  values: [id],
});

/** Deletes up to `batch` rows of `table` whose `owner` column is `ownerId`; one row returned per delete. */
const deleteBatch = (table: string, owner: string, ownerId: string, batch: number): SqlQuery => ({
  text: `delete from ${table} where id in (select id from ${table} where ${owner} = $1 limit $2) returning 1`,
  values: [ownerId, batch],
});

export const contentsBatchOfTable = (tableId: string, batch: number) => deleteBatch('contents', 'table_id', tableId, batch);

export const columnOf = (columnId: string): SqlQuery => ({
  text: 'select table_id, name from content_column where id = $1',
  values: [columnId],
});

/** Removes a column's key from a batch of the rows of its table that still have it. */
export const columnValuesBatch = (tableId: string, name: string, batch: number): SqlQuery => ({
  text: `update contents set data = data - $1::text
          where id in (select id from contents where table_id = $2 and jsonb_exists(data, $1) limit $3) returning id`,
  values: [name, tableId, batch],
});

export const tablesOfProject = (projectId: string): SqlQuery => ({
  text: 'select id from content_table where project_id = $1',
  values: [projectId],
});

export const projectsOfWorkspace = (workspaceId: string): SqlQuery => ({
  text: 'select id from project where workspace_id = $1',
  values: [workspaceId],
});

/*
 * Bytes shared with copies of a project (docs/concepts.md#copying-a-project): a file row of a
 * copy names the bytes' driver, key and the project they are stored under (`storage_project_id`).
 * A purge removes only the bytes no file of another project holds.
 */

/**
 * Postgres-stored blobs of the project that files of other projects still hold pass to one of
 * those projects: the blob's row then outlives this project's (its foreign key cascades).
 */
export const handOverHeldBlobs = (projectId: string): SqlQuery => ({
  text: `update file_blob b
            set project_id = (select f.project_id from file f
                               where f.storage_key = b.id::text and f.storage_driver = 'postgres' and f.project_id <> $1 limit 1)
          where b.project_id = $1
            and exists (select 1 from file f where f.storage_key = b.id::text and f.storage_driver = 'postgres' and f.project_id <> $1)`,
  values: [projectId],
});

/** Whether files of other projects hold bytes stored under this project's name outside the database. */
export const bytesHeldByOthers = (projectId: string): SqlQuery => ({
  text: `select exists (select 1 from file where storage_project_id = $1 and storage_project_id <> project_id and storage_driver <> 'postgres') as held`,
  values: [projectId],
});

const NOT_HELD_ELSEWHERE = `not exists (select 1 from file o where o.storage_key = f.storage_key and o.storage_driver = f.storage_driver and o.project_id <> $1)`;

/**
 * Bytes this project's files hold under another project's name that no file of another project
 * holds: this project was their last holder.
 */
export const lastHeldBytes = (projectId: string): SqlQuery => ({
  text: `select distinct f.storage_driver, f.storage_project_id, f.storage_key from file f
          where f.project_id = $1 and f.storage_project_id <> $1 and ${NOT_HELD_ELSEWHERE}`,
  values: [projectId],
});

/**
 * Bytes stored under this project's name outside the database that no file of another project
 * holds: its own files' and its derived images', removed one by one when others hold the rest.
 */
export const ownBytesNotHeld = (projectId: string): SqlQuery => ({
  text: `select f.storage_driver, f.storage_key from file f
          where f.project_id = $1 and f.storage_project_id = $1 and f.storage_driver <> 'postgres' and ${NOT_HELD_ELSEWHERE}
         union all
         select d.storage_driver, d.storage_key from file_derivative d where d.project_id = $1 and d.storage_driver <> 'postgres'`,
  values: [projectId],
});

/** Postgres-stored file bytes of a project (their chunks cascade). */
export const fileBlobsBatch = (projectId: string, batch: number) => deleteBatch('file_blob', 'project_id', projectId, batch);

export const requestLogSegmentsBatch = (projectId: string, batch: number) => deleteBatch('request_log_segment', 'project_id', projectId, batch);

export const deleteRequestRollups = (projectId: string): SqlQuery => ({
  text: 'delete from request_rollup where project_id = $1',
  values: [projectId],
});
