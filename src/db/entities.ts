import { AccountSchema, AccountTokenSchema } from '../modules/accounts/account.entity.js';
import { ApiKeySchema } from '../modules/api-keys/api-key.entity.js';
import { ColumnSchema } from '../modules/columns/column.entity.js';
import { ProjectMemberSchema, ProjectSchema } from '../modules/projects/project.entity.js';
import { TableSchema } from '../modules/tables/table.entity.js';
import { WorkspaceMemberSchema, WorkspaceSchema } from '../modules/workspaces/workspace.entity.js';

/** Every entity the ORM knows; modules add theirs here. */
export const entities = [
  AccountSchema,
  AccountTokenSchema,
  WorkspaceSchema,
  WorkspaceMemberSchema,
  ProjectSchema,
  ProjectMemberSchema,
  ApiKeySchema,
  TableSchema,
  ColumnSchema,
];
