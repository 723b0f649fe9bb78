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
    role: p.enum(PROJECT_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ProjectMember = InferEntity<typeof ProjectMemberSchema>;
