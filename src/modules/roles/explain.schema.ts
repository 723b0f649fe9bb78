import { z } from 'zod';
import { pathId } from '../../shared/schemas.js';
import { RULE_ACTIONS } from './role.schema.js';

/** `GET /v1/{projectId}/access/explain` (docs/roles.md#explain). */
export const explainInput = z.object({
  projectId: pathId('Project id'),
  table: z.string().min(1).max(200).describe('The table, by key or id, or `$files` for the file library'),
  contentsId: z.string().min(1).max(200).optional().describe('A row of the table (id or slug): explain for this row; with `$files`, a file id: explain for this file'),
  roleId: z.string().min(1).max(200).optional().describe('Explain for this role (a UUID, or ADMIN, EDITOR, VIEWER), as granted to a member; project ADMIN only'),
  apiKeyId: z.string().min(1).max(200).optional().describe('Explain for this API key; project ADMIN only'),
  accountId: z.string().min(1).max(200).optional().describe('Explain for this account in the project; project ADMIN only'),
});
export type ExplainInput = z.infer<typeof explainInput>;

const verdict = z.object({
  allowed: z.boolean(),
  rules: z.array(z.number().int()).describe('Indexes of the rules that allow it (for a row: whose `where` and statuses hold it)'),
});

export const explainOutput = z.object({
  actions: z.object(Object.fromEntries(RULE_ACTIONS.map((a) => [a, verdict])) as Record<(typeof RULE_ACTIONS)[number], typeof verdict>),
  fields: z.object({
    read: z.array(z.string()).describe('The columns read'),
    write: z.array(z.string()).describe('The columns written (`title.fr`: one locale)'),
  }),
});
