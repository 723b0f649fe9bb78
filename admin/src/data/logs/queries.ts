import type { RouterInputs } from 'tabula/client';
import { useApi } from '../api.js';
import { logKeys } from './keys.js';

/** The log's filters (docs/logs-and-metrics.md#request-logs: status, method, apiKeyId, from, to, path, console). */
export type LogQuery = Omit<RouterInputs['logs']['list'], 'projectId' | 'page' | 'size'>;

/** One page of the project's request log, newest first; the page shown stays while the next is read. */
export function useLogs(projectId: string, query: LogQuery, page: number, size: number) {
  return useApi(logKeys.list(projectId, query, page), (client) => client.logs.list.query({ projectId, ...query, page, size }), { keepPrevious: true });
}
