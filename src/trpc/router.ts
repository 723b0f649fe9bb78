import { accountRouter } from '../modules/accounts/account.router.js';
import { apiKeyRouter } from '../modules/api-keys/api-key.router.js';
import { roleRouter } from '../modules/roles/role.router.js';
import { explainRouter } from '../modules/roles/explain.router.js';
import { projectMemberRouter } from '../modules/projects/project-member.router.js';
import { projectRouter } from '../modules/projects/project.router.js';
import { workspaceMemberRouter } from '../modules/workspaces/workspace-member.router.js';
import { columnRouter } from '../modules/columns/column.router.js';
import { contentsRouter } from '../modules/contents/rows/rows.router.js';
import { revisionsRouter } from '../modules/contents/revisions/revisions.router.js';
import { draftsRouter } from '../modules/contents/drafts/drafts.router.js';
import { tableRouter } from '../modules/tables/table.router.js';
import { workspaceRouter } from '../modules/workspaces/workspace.router.js';
import { categoryRouter } from '../modules/categories/category.router.js';
import { variableRouter } from '../modules/variables/variable.router.js';
import { translationRouter } from '../modules/translations/translation.router.js';
import { fileRouter } from '../modules/files/file.router.js';
import { webhookRouter } from '../modules/webhooks/webhook.router.js';
import { logRouter } from '../modules/logs/log.router.js';
import { metricsRouter } from '../modules/metrics/metrics.router.js';
import { projectOpenApiRouter } from '../modules/project-openapi/project-openapi.router.js';
import { eventsRouter } from '../modules/events/events.router.js';
import { releaseRouter } from '../modules/releases/releases.router.js';
import { schemaRouter } from '../modules/schema/schema.router.js';
import { router } from './trpc.js';

/**
 * The whole API. Order matters for `/v1` routing (first match wins): literal-prefixed paths
 * (`/accounts`, `/workspaces`) come before the `/{projectId}/...` ones.
 */
export const appRouter = router({
  accounts: accountRouter,
  workspaces: workspaceRouter,
  workspaceMembers: workspaceMemberRouter,
  metrics: metricsRouter,
  projects: projectRouter,
  projectMembers: projectMemberRouter,
  apiKeys: apiKeyRouter,
  roles: roleRouter,
  releases: releaseRouter,
  access: explainRouter,
  schema: schemaRouter,
  tables: tableRouter,
  columns: columnRouter,
  contents: contentsRouter,
  revisions: revisionsRouter,
  drafts: draftsRouter,
  categories: categoryRouter,
  variables: variableRouter,
  translations: translationRouter,
  files: fileRouter,
  webhooks: webhookRouter,
  logs: logRouter,
  projectOpenApi: projectOpenApiRouter,
  events: eventsRouter,
});

export type AppRouter = typeof appRouter;
