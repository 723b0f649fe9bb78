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

/** Postgres-stored file bytes of a project (their chunks cascade). */
export const fileBlobsBatch = (projectId: string, batch: number) => deleteBatch('file_blob', 'project_id', projectId, batch);

export const requestLogSegmentsBatch = (projectId: string, batch: number) => deleteBatch('request_log_segment', 'project_id', projectId, batch);

export const deleteRequestRollups = (projectId: string): SqlQuery => ({
  text: 'delete from request_rollup where project_id = $1',
  values: [projectId],
});
