import { AccountSchema, AccountTokenSchema } from './accounts/account.entity.js';
import { ApiKeySchema } from './api-keys/api-key.entity.js';
import { CategorySchema } from './categories/category.entity.js';
import { ColumnSchema } from './columns/column.entity.js';
import { FileSchema } from './files/file.entity.js';
import { ProjectMemberSchema, ProjectSchema } from './projects/project.entity.js';
import { RoleSchema } from './roles/role.entity.js';
import { TableSchema } from './tables/table.entity.js';
import { TranslationSchema } from './translations/translation.entity.js';
import { WebhookDeliverySchema, WebhookSchema } from './webhooks/webhook.entity.js';
import { VariableSchema } from './variables/variable.entity.js';
import { WorkspaceMemberSchema, WorkspaceSchema } from './workspaces/workspace.entity.js';

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
  CategorySchema,
  VariableSchema,
  RoleSchema,
  TranslationSchema,
  FileSchema,
  WebhookSchema,
  WebhookDeliverySchema,
];
