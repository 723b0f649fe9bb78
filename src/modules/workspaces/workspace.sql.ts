import type { SqlQuery } from '../../db/sql.js';

/** Locks a workspace's row: membership changes of one workspace take turns. */
export const lockWorkspace = (workspaceId: string): SqlQuery => ({
  text: 'select id from workspace where id = $1 for update',
  values: [workspaceId],
});
