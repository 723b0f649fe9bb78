import { useQuery } from '@tanstack/react-query';
import { ALL, useApi } from '../api.js';
import { useClient } from '../session/session.js';
import { webhookKeys } from './keys.js';

/** Deliveries happen in a worker, after the change that caused them: the list looks again on its own. */
const DELIVERIES_REFRESH_MS = 5_000;

/** The project's webhooks. */
export function useWebhooks(projectId: string) {
  return useApi(webhookKeys.list(projectId), (client) => client.webhooks.list.query({ projectId, ...ALL }));
}

/** One page of a webhook's delivery attempts, newest first; the page shown stays while the next is read. */
export function useDeliveries(projectId: string, webhookId: string, page: number, size: number) {
  const client = useClient();
  return useQuery({
    queryKey: webhookKeys.deliveryPage(projectId, webhookId, page),
    queryFn: () => client.webhooks.deliveries.query({ projectId, webhookId, page, size }),
    refetchInterval: DELIVERIES_REFRESH_MS,
    placeholderData: (previous) => previous,
  });
}
