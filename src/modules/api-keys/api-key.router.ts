import { z } from 'zod';
import { markCreated, markNoContent, type Context } from '../../trpc/context.js';
import { rawPathParam } from '../../auth/access.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import {
  apiKeyIdInput,
  apiKeyListOutput,
  apiKeyOutput,
  apiKeyWithSecretOutput,
  createApiKeyInput,
  listApiKeysInput,
  rotateApiKeyInput,
  updateApiKeyInput,
} from './api-key.schema.js';
import { createApiKey, deleteApiKey, findApiKey, listApiKeys, rotateApiKey, updateApiKey } from './api-key.service.js';

const TAG = 'API Keys';
const collection = '/{projectId}/api-keys' as const;
const item = '/{projectId}/api-keys/{apiKeyId}' as const;
/** Only project ADMIN account tokens manage keys (docs/concepts.md#credentials-and-roles). */
const admin = projectProcedure('admin');
/** One key: an unknown id is 404 before the body is looked at (docs/reliability.md#errors). The entity stays in the
 * request's identity map, so the service's own lookup costs no second query. */
const adminItem = projectItemProcedure('admin', (ctx, input) => findApiKey(ctx.em, ctx.access.project.id, rawPathParam(input, 'apiKeyId')));

/** A changed key must stop (or start) working at once on this process. */
const forgetCredentials = (ctx: Context) => ctx.deps.credentials.invalidate();

export const apiKeyRouter = router({
  list: admin
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List API keys (values never shown)', protect: true } })
    .input(listApiKeysInput)
    .output(apiKeyListOutput)
    .query(({ ctx, input }) => listApiKeys(ctx.em, ctx.access.project.id, input)),

  create: admin
    .meta({
      openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create an API key (the value is shown once)', protect: true },
      successStatus: 201,
    })
    .input(createApiKeyInput)
    .output(apiKeyWithSecretOutput)
    .mutation(async ({ ctx, input }) => {
      const created = await createApiKey(ctx.em, ctx.access.project.id, input);
      markCreated(ctx, created.id);
      return created;
    }),

  update: adminItem
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update an API key (name, permission, allowedHosts, active, expiresAt)', protect: true } })
    .input(updateApiKeyInput)
    .output(apiKeyOutput)
    .mutation(async ({ ctx, input }) => {
      const updated = await updateApiKey(ctx.em, ctx.access.project.id, input);
      forgetCredentials(ctx);
      return updated;
    }),

  delete: adminItem
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete an API key (refused at once)', protect: true }, successStatus: 204 })
    .input(apiKeyIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteApiKey(ctx.em, ctx.access.project.id, input.apiKeyId);
      forgetCredentials(ctx);
      markNoContent(ctx);
    }),

  rotate: adminItem
    .meta({
      openapi: {
        method: 'POST',
        path: `${item}/rotate`,
        tags: [TAG],
        summary: 'Rotate an API key: a new value; the old one works for graceSeconds',
        protect: true,
      },
    })
    .input(rotateApiKeyInput)
    .output(apiKeyWithSecretOutput)
    .mutation(async ({ ctx, input }) => {
      const rotated = await rotateApiKey(ctx.em, ctx.access.project.id, input.apiKeyId, input.graceSeconds);
      forgetCredentials(ctx);
      return rotated;
    }),
});
