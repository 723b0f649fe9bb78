import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { AccountSchema } from '../accounts/account.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const WORKSPACE_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

export const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspace',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
    /** Set on delete: the workspace is unreachable at once and purged in the background. */
    deletedAt: p.datetime().nullable(),
  },
});
export type Workspace = InferEntity<typeof WorkspaceSchema>;

export const WorkspaceMemberSchema = defineEntity({
  name: 'WorkspaceMember',
  tableName: 'workspace_member',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    workspace: () => p.manyToOne(WorkspaceSchema).deleteRule('cascade'),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    role: p.enum(WORKSPACE_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type WorkspaceMember = InferEntity<typeof WorkspaceMemberSchema>;
