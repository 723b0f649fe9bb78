import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { listLogsInput, logListOutput } from './log.schema.js';
import { listLogs } from './log.service.js';

export const logRouter = router({
  list: projectProcedure('logs')
    .meta({
      openapi: {
        method: 'GET',
        path: '/{projectId}/logs',
        tags: ['Logs'],
        summary: 'List API request logs, newest first (filters: status, method, apiKeyId, from, to)',
        description:
          'Every /v1 and /trpc request that names the project, refused ones included. Read keys get 403 (read_write keys and ' +
          'project members may). Entries appear within 2 s ' +
          '(they are written in batches by a worker); logs older than LOG_RETENTION_DAYS are removed.',
        protect: true,
      },
    })
    .input(listLogsInput)
    .output(logListOutput)
    .query(({ ctx, input }) => listLogs(ctx.deps.pool, ctx.access.project.id, input)),
});
