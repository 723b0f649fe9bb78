import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { TabulaClient } from 'tabula/client';
import { useClient } from './session/session.js';

/** Lists the console shows in a switcher or a picker: the API's largest page. */
export const ALL = { page: 1, size: 1000 } as const;

/**
 * TanStack Query over the typed client: each read is `useApi(key, (client) => client.x.y.query(input))`,
 * its key from its domain's factory (`data/<domain>/keys.ts`), so that a write or an event
 * refreshes by prefix (`contentsKeys.table(projectId, tableId)` refreshes that table's lists and
 * rows). tRPC's own TanStack adapter pins @trpc/client to an older exact version than the
 * server's, so the console calls the client directly.
 */
export function useApi<T>(key: QueryKey, read: (client: TabulaClient) => Promise<T>, options: { enabled?: boolean; keepPrevious?: boolean } = {}) {
  const client = useClient();
  return useQuery({
    queryKey: key,
    queryFn: () => read(client),
    enabled: options.enabled,
    placeholderData: options.keepPrevious ? (previous) => previous : undefined,
  });
}

/** A write; on success every query under each of `invalidates` (keys from the factories) is read again. */
export function useApiMutation<I, T>(write: (client: TabulaClient, input: I) => Promise<T>, invalidates: QueryKey[] = []) {
  const client = useClient();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (input: I) => write(client, input),
    onSuccess: async () => {
      await Promise.all(invalidates.map((queryKey) => queries.invalidateQueries({ queryKey })));
    },
  });
}
