import { findProject } from '../../modules/projects/project.service.js';
import { findWebhookOfDelivery, retryDelivery } from '../../modules/webhooks/webhook.service.js';
import { defineCommand, printJson, required } from '../command.js';
import { withBoss, withOrm } from '../database.js';

export const deliveriesReplay = defineCommand({
  name: 'deliveries replay',
  summary: 'Deliver a webhook event again (by the id of one of its attempts)',
  usage: `Usage: npm run cli -- deliveries replay --id <deliveryId>

Sends the event of that delivery attempt to its webhook again, now (also to a disabled webhook),
and prints the new attempt as JSON: { id, eventId, type, attempt, statusCode, durationMs, error,
createdAt }. Exit code 0 when the endpoint answered 2xx, 1 otherwise. Attempt ids are listed by
GET /v1/{projectId}/webhooks/{webhookId}/deliveries. Like POST .../deliveries/{id}/retry, it
schedules no further retries.`,
  options: { id: { type: 'string' } },
  async run(values, ctx, usage) {
    const id = required(values.id, '--id', usage);
    const config = ctx.config();
    const attempt = await withOrm(config, async (em, url) => {
      const webhook = await findWebhookOfDelivery(em, id);
      // A webhook of a deleted project is gone for the API too.
      await findProject(em, webhook.project.id);
      return withBoss(url, config, (boss) =>
        retryDelivery(em, { boss, allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE, retryDelays: config.WEBHOOK_RETRY_DELAYS }, webhook, id),
      );
    });
    printJson(attempt);
    const delivered = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    if (!delivered) process.stderr.write(`not delivered: ${attempt.error ?? `HTTP ${attempt.statusCode ?? 'no response'}`}\n`);
    return delivered ? 0 : 1;
  },
});
