import { z } from 'zod';
import { isoDate, jsonBoolean, nameString, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { CONTENT_STATUSES } from '../tables/table.entity.js';

/**
 * Roles and their rules (docs/roles.md). The schema checks the JSON shape: types, known keys,
 * the action and status names (400 BAD_REQUEST naming the field, as for every body). What a
 * rule means against the project (tables, columns, locales, filters, duplicates) is checked by
 * role-rules.ts (422).
 */

export const RULE_ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** Most rules one role holds. */
export const MAX_RULES = 100;

/** One filter item of `where`, in the list filter language: its keys and values are checked by the query parser. */
const whereItem = z.record(z.string(), z.unknown());

export const rule = z.strictObject({
  table: z.string().min(1).max(100).describe('A table key, "*" (every table) or "$files" (the file library)'),
  actions: z.array(z.enum(RULE_ACTIONS)).describe('What the rule allows, at least one, each once'),
  where: z
    .array(whereItem)
    .optional()
    .describe('Rows inside the rule: filter items {i, w, v, l?} of the list filter language, all of which must match; "$me" and "$now" stand for the caller and the current time'),
  fields: z
    .strictObject({
      read: z.array(z.string()).optional().describe('Columns the rule reads (absent: all)'),
      write: z.array(z.string()).optional().describe('Columns the rule writes (absent: all); "title.fr" names one locale of a localized column'),
    })
    .optional(),
  statuses: z.array(z.enum(CONTENT_STATUSES)).optional().describe('The statuses the rule reads (absent: every status)'),
  drafts: jsonBoolean.optional().describe('true: the rule reads pending drafts'),
  writeAsDraft: jsonBoolean.optional().describe('true: updates of PUBLISHED rows become drafts'),
});
export type Rule = z.infer<typeof rule>;

const rules = z.array(rule).describe(`The rules; a caller may do what any of them allows (at most ${MAX_RULES})`);

export const roleOutput = z.object({
  id: z.string().describe('A UUID, or the name of a built-in role (ADMIN, EDITOR, VIEWER)'),
  name: z.string(),
  description: z.string(),
  rules: z.array(rule),
  builtIn: z.boolean().describe('true for ADMIN, EDITOR and VIEWER, which cannot be changed or deleted'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type RoleOutput = z.infer<typeof roleOutput>;

const projectPath = { projectId: pathId('Project id') };
const rolePath = { ...projectPath, roleId: pathId('Role id (a UUID, or ADMIN, EDITOR, VIEWER)') };

export const listRolesInput = z.object({ ...projectPath, ...pageParams });
export const roleListOutput = listOf(roleOutput);

export const createRoleInput = z.object({
  ...projectPath,
  name: nameString.describe('Unique per project; not a built-in role name'),
  description: z.string().max(10_000).optional(),
  rules,
});
export type CreateRoleInput = z.infer<typeof createRoleInput>;

export const updateRoleInput = z.object({
  ...rolePath,
  name: nameString.optional(),
  description: z.string().max(10_000).optional(),
  rules: rules.optional(),
});
export type UpdateRoleInput = z.infer<typeof updateRoleInput>;

export const roleIdInput = z.object(rolePath);
