import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from '../../shared/ids.js';
import { ProjectSchema } from '../projects/project.entity.js';
import { createdAtOf } from '../../db/timestamps.js';

export const WebhookSchema = defineEntity({
  name: 'Webhook',
  tableName: 'webhook',
  properties: {
    id: p.uuid().primary().onCreate(() => uuidv7()),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade'),
    name: p.string(),
    url: p.text(),
    events: p.array().columnType('text[]'),
    tableIds: p.array().columnType('uuid[]'),
    active: p.boolean().default(true),
    secret: p.text(),
    previousSecret: p.text().nullable(),
    previousSecretUntil: p.datetime().nullable(),
    disabledReason: p.text().nullable(),
    consecutiveFailures: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(createdAtOf).onUpdate(() => new Date()),
  },
});
export type Webhook = InferEntity<typeof WebhookSchema>;

/** One delivery attempt. Written by the delivery code in raw SQL; read here for the listing. */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.uuid().primary(),
    webhook: () => p.manyToOne(WebhookSchema).deleteRule('cascade'),
    eventId: p.uuid(),
    type: p.string(),
    attempt: p.integer(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer(),
    error: p.text().nullable(),
    createdAt: p.datetime(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;
