import { workspaceProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { metricsInput, metricsOutput } from './metrics.schema.js';
import { workspaceMetrics } from './metrics.service.js';

export const metricsRouter = router({
  get: workspaceProcedure('ADMIN')
    .meta({
      openapi: {
        method: 'GET',
        path: '/workspaces/{workspaceId}/metrics',
        tags: ['Metrics'],
        summary: 'Read usage metrics of a workspace (OWNER/ADMIN)',
        description:
          'Request figures come from hourly rollups that a worker updates every minute (the current minute may ' +
          'not be counted yet); contents, files and storage bytes are counted live. `errors` counts responses ' +
          'with status 400 or above. `projectId` and `apiKeyId` narrow the figures to one project and one key.',
        protect: true,
      },
    })
    .input(metricsInput)
    .output(metricsOutput)
    .query(({ ctx, input }) => workspaceMetrics(ctx.deps.pool, ctx.workspace.id, input)),
});
