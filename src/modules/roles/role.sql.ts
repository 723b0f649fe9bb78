import type { SqlQuery } from '../../db/sql.js';

/**
 * How many API keys and project members hold the role (docs/roles.md#granting-a-role). Read
 * here rather than through their entities: the keys and members modules build on this one.
 */
export const roleGrantCounts = (roleId: string): SqlQuery => ({
  text: `select (select count(*) from api_key where role_id = $1)::int as keys,
                (select count(*) from project_member where role_id = $1)::int as members`,
  values: [roleId],
});
