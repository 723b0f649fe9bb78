import type { Rule } from '../modules/roles/role.schema.js';
import type { GrantedRole } from './principal.js';

/**
 * The columns a credential or membership look-up selects of the custom role it grants, through a
 * left join of `role r` in the same statement (docs/roles.md#granting-a-role): all null when the
 * grant is a built-in one.
 */
export const GRANTED_ROLE_COLUMNS = 'r.id as role_id, r.name as role_name, r.rules as role_rules, r.updated_at as role_updated_at';

export interface GrantedRoleRow {
  role_id: string | null;
  role_name: string | null;
  role_rules: Rule[] | null;
  // The ORM's connection returns timestamps as strings.
  role_updated_at: Date | string | null;
}

export const grantedRoleOf = (row: GrantedRoleRow): GrantedRole | null =>
  row.role_id === null
    ? null
    : { id: row.role_id, name: row.role_name!, rules: row.role_rules ?? [], version: new Date(row.role_updated_at!).toISOString() };
