import { z } from 'zod';
import { EVENT_TYPES } from '../events/vocabulary.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { isoDate, jsonBoolean, nameString, pathId } from '../../shared/schemas.js';
import { isTableRef } from '../tables/table-refs.js';

/** The event types of docs/webhooks.md; `*` subscribes to all of them. */
export const WEBHOOK_EVENTS = [...EVENT_TYPES, '*'] as const;

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  // Credentials in the URL would be sent to whoever answers; a webhook authenticates by signature.
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password;
}

/** An absolute http(s) URL, else 400 (where it may point is a 422, checked by the service). */
export const webhookUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(isHttpUrl, 'must be an absolute http:// or https:// URL (without credentials)')
  .describe('Absolute http:// or https:// URL that receives the POSTs');

export const webhookEvents = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1)
  .max(WEBHOOK_EVENTS.length)
  .transform((events) => [...new Set(events)])
  .describe('Event types to receive, or ["*"] for all');

export const webhookTableIds = z
  .array(z.string().refine(isTableRef, 'must be a table id or key'))
  .max(1000)
  .describe('Narrows contents events to these tables (ids or keys; stored and returned as ids); empty or absent = every table');

export const webhookOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  tableIds: z.array(z.string()).describe('Table ids (a key given on create or update is stored as its id)'),
  active: z.boolean(),
  disabledReason: z.string().nullable().describe('Why the server disabled the webhook (410 Gone, or 5 events in a row that exhausted their retries)'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type WebhookOutput = z.infer<typeof webhookOutput>;

export const webhookWithSecretOutput = webhookOutput.extend({
  secret: z.string().describe('The signing secret (whsec_…): shown only in this response'),
});

const projectPath = { projectId: pathId('Project id') };
const webhookPath = { ...projectPath, webhookId: pathId('Webhook id') };

export const listWebhooksInput = z.object({ ...projectPath, ...pageParams });
export const webhookListOutput = listOf(webhookOutput);

export const createWebhookInput = z.object({
  ...projectPath,
  name: nameString.optional().describe('Defaults to the URL host'),
  url: webhookUrl,
  events: webhookEvents,
  tableIds: webhookTableIds.optional(),
  active: jsonBoolean.optional(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookInput>;

export const updateWebhookInput = z.object({
  ...webhookPath,
  name: nameString.optional(),
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  tableIds: webhookTableIds.optional(),
  active: jsonBoolean.optional().describe('true re-enables a disabled webhook: new events are delivered again'),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookInput>;

export const webhookIdInput = z.object(webhookPath);

export const deliveryOutput = z.object({
  id: z.uuid(),
  eventId: z.uuid().describe('The webhook-id header: the same on every attempt of one event'),
  type: z.string(),
  attempt: z.number().int().describe('Counts from 1 per event'),
  statusCode: z.number().int().nullable().describe('null when no response came'),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  createdAt: isoDate,
});
export type DeliveryOutput = z.infer<typeof deliveryOutput>;

export const listDeliveriesInput = z.object({ ...webhookPath, ...pageParams });
export const deliveryListOutput = listOf(deliveryOutput);

export const retryDeliveryInput = z.object({ ...webhookPath, deliveryId: pathId('Delivery id') });
