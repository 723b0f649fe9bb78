import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { AccountSchema } from '../accounts/account.entity.js';
import { WorkspaceSchema } from '../workspaces/workspace.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const PROJECT_ROLES = ['ADMIN', 'EDITOR', 'VIEWER'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export const ProjectSchema = defineEntity({
  name: 'Project',
  tableName: 'project',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    workspace: () => p.manyToOne(WorkspaceSchema).deleteRule('cascade'),
    name: p.string(),
    description: p.text().default(''),
    locales: p.array().columnType('text[]'),
    defaultLocale: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
});
export type Project = InferEntity<typeof ProjectSchema>;

export const ProjectMemberSchema = defineEntity({
  name: 'ProjectMember',
  tableName: 'project_member',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    /** A built-in role, or null when the member holds a custom role (`roleId`): exactly one of the two is set. */
    role: p.enum(PROJECT_ROLES).nullable(),
    /**
     * A custom role of the project (docs/roles.md#granting-a-role). A plain column, not a relation:
     * the roles module builds on this one (the built-in roles), so this one cannot import it. The
     * database's foreign key (role, project) keeps it in the project and refuses deleting the role
     * while granted.
     */
    roleId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ProjectMember = InferEntity<typeof ProjectMemberSchema>;

/** What a project member holds (docs/roles.md#granting-a-role): a built-in role or a custom one, by id. */
export type ProjectGrant = { role: ProjectRole; roleId: null } | { role: null; roleId: string };
