import { ALL, useApi } from '../api.js';
import { apiKeyKeys } from './keys.js';

/** The project's API keys (project admins only). */
export function useApiKeys(projectId: string) {
  return useApi(apiKeyKeys.list(projectId), (client) => client.apiKeys.list.query({ projectId, ...ALL }));
}

/** The project's API keys, to name the authors of revisions (project admins only). */
export function useApiKeyNames(projectId: string) {
  return useApi(apiKeyKeys.names(projectId), (client) => client.apiKeys.list.query({ projectId, ...ALL }));
}
