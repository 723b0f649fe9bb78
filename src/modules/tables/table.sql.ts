import type { SqlQuery } from '../../db/sql.js';
import { isUuid } from '../../shared/ids.js';

/** A live table of a project, by id or key. */
export const liveTable = (projectId: string, tableIdOrKey: string): SqlQuery => ({
  text: `select id, key, default_status from content_table
          where project_id = $1 and deleted_at is null and ${isUuid(tableIdOrKey) ? 'id = $2' : 'key = $2'}`,
  values: [projectId, tableIdOrKey],
});

/** Every column of a table, deleted ones (still being purged) flagged, in position order. */
export const columnsOfTable = (tableId: string): SqlQuery => ({
  text: `select id, name, type, settings, deleted_at is not null as deleted from content_column
          where table_id = $1 order by position, id`,
  values: [tableId],
});
