import type { SqlQuery } from '../../db/sql.js';

/** A live project (of a live workspace) by id. */
export const liveProject = (projectId: string): SqlQuery => ({
  text: `select p.id, p.workspace_id, p.locales, p.default_locale
           from project p join workspace w on w.id = p.workspace_id and w.deleted_at is null
          where p.id = $1 and p.deleted_at is null`,
  values: [projectId],
});
