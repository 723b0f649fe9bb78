import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import { markCreated, markNoContent, type Context } from '../../trpc/context.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import {
  createWebhookInput,
  deliveryListOutput,
  deliveryOutput,
  listDeliveriesInput,
  listWebhooksInput,
  retryDeliveryInput,
  updateWebhookInput,
  webhookIdInput,
  webhookListOutput,
  webhookOutput,
  webhookWithSecretOutput,
} from './webhook.schema.js';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  toWebhookOutput,
  updateWebhook,
  type WebhookDeps,
} from './webhook.service.js';

const TAG = 'Webhooks';
const collection = '/{projectId}/webhooks' as const;
const item = '/{projectId}/webhooks/{webhookId}' as const;

/** Only project ADMIN account tokens manage webhooks; API keys get 403 (docs/webhooks.md). */
const admin = projectProcedure('admin');

/** `.../webhooks/{webhookId}/...`: the webhook must belong to the project (404), checked before the body (docs/reliability.md#errors). */
const webhookItem = projectItemProcedure('admin', (ctx, input) => findWebhook(ctx.em, ctx.access.project.id, rawPathParam(input, 'webhookId')));

const webhookDeps = (ctx: Context): WebhookDeps => ({
  boss: ctx.deps.boss,
  allowPrivate: ctx.deps.config.WEBHOOKS_ALLOW_PRIVATE,
  retryDelays: ctx.deps.config.WEBHOOK_RETRY_DELAYS,
});

export const webhookRouter = router({
  list: admin
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List webhooks (secrets never shown)', protect: true } })
    .input(listWebhooksInput)
    .output(webhookListOutput)
    .query(({ ctx, input }) => listWebhooks(ctx.em, ctx.access.project.id, input)),

  create: admin
    .meta({
      openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a webhook (the signing secret is shown once)', protect: true },
      successStatus: 201,
    })
    .input(createWebhookInput)
    .output(webhookWithSecretOutput)
    .mutation(async ({ ctx, input }) => {
      const created = await createWebhook(ctx.em, webhookDeps(ctx), ctx.access.project.id, input);
      markCreated(ctx, created.id);
      return created;
    }),

  get: webhookItem
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'One webhook (its secret is never shown again)', protect: true } })
    .input(webhookIdInput)
    .output(webhookOutput)
    .query(({ ctx }) => toWebhookOutput(ctx.item)),

  update: webhookItem
    .meta({
      openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update a webhook; active: true re-enables a disabled one', protect: true },
    })
    .input(updateWebhookInput)
    .output(webhookOutput)
    .mutation(({ ctx, input }) => updateWebhook(ctx.em, webhookDeps(ctx), ctx.item, input)),

  delete: webhookItem
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a webhook (pending deliveries stop)', protect: true }, successStatus: 204 })
    .input(webhookIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteWebhook(ctx.em, ctx.item);
      markNoContent(ctx);
    }),

  rotateSecret: webhookItem
    .meta({
      openapi: {
        method: 'POST',
        path: `${item}/rotate-secret`,
        tags: [TAG],
        summary: 'A new signing secret (shown once); for 24 h deliveries carry a signature with each secret',
        protect: true,
      },
    })
    .input(webhookIdInput)
    .output(webhookWithSecretOutput)
    .mutation(({ ctx }) => rotateWebhookSecret(ctx.em, ctx.item)),

  deliveries: webhookItem
    .meta({ openapi: { method: 'GET', path: `${item}/deliveries`, tags: [TAG], summary: 'Delivery attempts, newest first', protect: true } })
    .input(listDeliveriesInput)
    .output(deliveryListOutput)
    .query(({ ctx, input }) => listDeliveries(ctx.em, ctx.item, input)),

  retryDelivery: webhookItem
    .meta({
      openapi: {
        method: 'POST',
        path: `${item}/deliveries/{deliveryId}/retry`,
        tags: [TAG],
        summary: "Deliver that attempt's event again now; answers with the new attempt",
        protect: true,
      },
    })
    .input(retryDeliveryInput)
    .output(deliveryOutput)
    .mutation(({ ctx, input }) => retryDelivery(ctx.em, webhookDeps(ctx), ctx.item, input.deliveryId)),
});
