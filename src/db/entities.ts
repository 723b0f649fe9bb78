import { AccountSchema, AccountTokenSchema } from '../modules/accounts/account.entity.js';
import { ApiKeySchema } from '../modules/api-keys/api-key.entity.js';
import { CategorySchema } from '../modules/categories/category.entity.js';
import { ColumnSchema } from '../modules/columns/column.entity.js';
import { FileSchema } from '../modules/files/file.entity.js';
import { ProjectMemberSchema, ProjectSchema } from '../modules/projects/project.entity.js';
import { TableSchema } from '../modules/tables/table.entity.js';
import { TranslationSchema } from '../modules/translations/translation.entity.js';
import { WebhookDeliverySchema, WebhookSchema } from '../modules/webhooks/webhook.entity.js';
import { VariableSchema } from '../modules/variables/variable.entity.js';
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
  CategorySchema,
  VariableSchema,
  TranslationSchema,
  FileSchema,
  WebhookSchema,
  WebhookDeliverySchema,
];
