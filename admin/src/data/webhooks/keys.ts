import { projectKeys } from '../projects/keys.js';

/** A project's webhooks and each one's deliveries. */
export const webhookKeys = {
  list: (projectId: string) => [...projectKeys.all(projectId), 'webhooks'] as const,
  deliveries: (projectId: string, webhookId: string) => [...webhookKeys.list(projectId), webhookId, 'deliveries'] as const,
  deliveryPage: (projectId: string, webhookId: string, page: number) => [...webhookKeys.deliveries(projectId, webhookId), page] as const,
};
