import { PROJECT_ROLES, type ProjectRole } from '../projects/project.entity.js';
import { CONTENT_STATUSES } from '../tables/table.entity.js';
import { RULE_ACTIONS, type Rule } from './role.schema.js';

/**
 * The three project roles every project has (docs/roles.md#built-in-roles), written as rules.
 * They are not stored: their id is their name, and they cannot be changed or deleted.
 */
export interface BuiltInRole {
  id: ProjectRole;
  name: ProjectRole;
  description: string;
  rules: Rule[];
}

const everything: Rule[] = [{ table: '*', actions: [...RULE_ACTIONS], drafts: true }];

const DESCRIPTIONS: Record<ProjectRole, string> = {
  ADMIN: 'Everything: contents and the other data, the schema (tables, columns), API keys, webhooks, roles and members.',
  EDITOR: 'Reads and writes contents and the other project data; cannot change the schema, keys, webhooks or roles.',
  VIEWER: 'Reads contents (every status) and the other project data.',
};

const RULES: Record<ProjectRole, Rule[]> = {
  ADMIN: everything,
  EDITOR: everything,
  VIEWER: [{ table: '*', actions: ['read'], drafts: true }],
};

/**
 * What a key's `permission` shorthand stands for (docs/concepts.md#credentials-and-roles): `read`
 * reads PUBLISHED rows (a key's default statuses), `read_write` does everything, drafts included.
 */
export const PERMISSION_RULES: Record<'read' | 'read_write', Rule[]> = {
  read: [{ table: '*', actions: ['read'] }],
  read_write: [{ table: '*', actions: [...RULE_ACTIONS], statuses: [...CONTENT_STATUSES], drafts: true }],
};

/** In the order lists show them: ADMIN, EDITOR, VIEWER. */
export const BUILT_IN_ROLES: readonly BuiltInRole[] = PROJECT_ROLES.map((name) => ({ id: name, name, description: DESCRIPTIONS[name], rules: RULES[name] }));

export const builtInRole = (idOrName: string): BuiltInRole | null => BUILT_IN_ROLES.find((r) => r.id === idOrName) ?? null;
