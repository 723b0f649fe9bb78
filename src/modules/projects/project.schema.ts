import { z } from 'zod';
import { isoDate, jsonBoolean, nameString, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { memberOutput, workspacePath } from '../workspaces/workspace.schema.js';
import { PROJECT_ROLES } from './project.entity.js';

/** A BCP 47-style locale code such as `en`, `fr`, `pt-BR`, `zh-Hant`. */
export const localeCode = z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a locale code such as en or pt-BR');

export const projectRole = z.enum(PROJECT_ROLES);

/**
 * What a project member holds (docs/roles.md#granting-a-role): a built-in role by name, or a
 * custom role of the project by id (an unknown id is 422).
 */
const memberRole = z
  .union([projectRole, z.uuid()])
  .describe("ADMIN, EDITOR or VIEWER, or the id of a custom role of the project (docs/roles.md), whose rules say what the member may do in the tables");

export const projectOutput = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  name: z.string(),
  description: z.string(),
  locales: z.array(z.string()),
  defaultLocale: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type ProjectOutput = z.infer<typeof projectOutput>;

export const projectPath = { ...workspacePath, projectId: pathId('Project id') };

const projectFields = {
  name: nameString,
  description: z.string().max(10_000),
  locales: z.array(localeCode).min(1).max(100),
  defaultLocale: localeCode,
};

export const listProjectsInput = z.object({ ...workspacePath, ...pageParams });
export const projectListOutput = listOf(projectOutput);
export const createProjectInput = z.object({
  ...workspacePath,
  name: projectFields.name,
  description: projectFields.description.optional(),
  locales: projectFields.locales.optional().describe('Defaults to ["en"]'),
  defaultLocale: projectFields.defaultLocale.optional().describe('Defaults to the first locale; must be one of locales'),
  from: z
    .object({
      projectId: z.uuid().describe('The project to copy: the caller must be its ADMIN (project ADMIN, or OWNER/ADMIN of its workspace)'),
      contents: jsonBoolean.optional().describe('Also copy its rows (every status, drafts included, revisions not) and its files (sharing the stored bytes). Default false'),
    })
    .optional()
    .describe(
      'Creates the project as a copy of another one (docs/concepts.md#copying-a-project): its locales, tables, columns, roles, categories, variables and translations, and with contents its rows and files. Not copied: API keys, webhooks, members, releases, revisions, request logs and metrics. locales and defaultLocale are then the source\'s and must not be given.',
    ),
});
export type CreateProjectInput = z.infer<typeof createProjectInput>;
export const updateProjectInput = z.object({
  ...projectPath,
  name: projectFields.name.optional(),
  description: projectFields.description.optional(),
  locales: projectFields.locales.optional(),
  defaultLocale: projectFields.defaultLocale.optional(),
});
export type UpdateProjectInput = z.infer<typeof updateProjectInput>;
export const projectIdInput = z.object(projectPath);

export const projectMemberOutput = memberOutput.extend({ role: memberRole });
export const listProjectMembersInput = z.object({ ...projectPath, ...pageParams });
export const projectMemberListOutput = listOf(projectMemberOutput);
export const addProjectMemberInput = z
  .object({
    ...projectPath,
    accountId: z.uuid().optional().describe('The account to add (or give email)'),
    email: z.email().optional().describe('The e-mail of the account to add (or give accountId)'),
    role: memberRole,
  })
  .refine((v) => v.accountId !== undefined || v.email !== undefined, {
    message: 'accountId or email is required',
    path: ['accountId'],
  });
export type AddProjectMemberInput = z.infer<typeof addProjectMemberInput>;
const projectMemberPath = { ...projectPath, memberId: pathId('Project member id') };
export const updateProjectMemberInput = z.object({ ...projectMemberPath, role: memberRole });
export const projectMemberIdInput = z.object(projectMemberPath);
