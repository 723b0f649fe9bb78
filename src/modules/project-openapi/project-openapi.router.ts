import { z } from 'zod';
import { pathId } from '../../shared/schemas.js';
import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { projectOpenApiDocument } from './project-openapi.service.js';

const input = z.object({ projectId: pathId('Project id') });
const output = z.record(z.string(), z.unknown()).meta({
  description: 'An OpenAPI 3.1 document',
  examples: [{ openapi: '3.1.0', info: { title: 'Website: contents API', version: '5f1c2a9b3e7d' }, servers: [{ url: '/v1/0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a' }], paths: {} }],
});

export const projectOpenApiRouter = router({
  get: projectProcedure('read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/{projectId}/openapi.json',
        tags: ['Tables'],
        summary: 'OpenAPI document of this project’s contents, typed by its tables’ columns',
        description:
          'For each table, list/create/read/update/delete of its contents with `data` as a JSON schema built from the columns ' +
          '(types, required, options, bounds, patterns, locales). Any credential that may read the project gets it; feed it to ' +
          'a generator such as openapi-typescript for a typed client.',
        protect: true,
      },
    })
    .input(input)
    .output(output)
    // A custom role's document holds the tables and columns it reads or writes only (docs/roles.md#rules).
    .query(({ ctx }) => projectOpenApiDocument(ctx.em, ctx.access.project.id, ctx.access.role ? ctx.access.viewOf : undefined)),
});
