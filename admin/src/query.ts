import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { TabulaError, type TabulaClient } from 'tabula/client';
import { useClient } from './session.js';

/**
 * TanStack Query over the typed client: each read is `useApi(key, (client) => client.x.y.query(input))`,
 * keyed by the procedure's path and input, so that a mutation invalidates by path prefix
 * (`['contents']` refreshes every contents list and row). tRPC's own TanStack adapter pins
 * @trpc/client to an older exact version than the server's, so the console calls the client
 * directly.
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

/** A write; on success every query under each of `invalidates` is read again. */
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

/** A failed call as people read it: the error message (docs/reliability.md#errors), with the request id for support. */
export function errorText(error: unknown): string {
  if (error instanceof TabulaError) return error.requestId ? `${error.message} (request ${error.requestId})` : error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * 422 details and 409 conflicts by field: `{ "data.title": "must not be empty" }`. A 409 names its
 * field at the start of its message (`data.sku: this value already exists in another row`).
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof TabulaError)) return {};
  if (error.code === 'CONFLICT') {
    const match = /^([\w.-]+): (.+)$/.exec(error.message);
    return match ? { [match[1]]: match[2] } : {};
  }
  return Object.fromEntries((error.details ?? []).map((detail) => [detail.field, detail.message]));
}
