import { workspaceKeys } from '../workspaces/keys.js';

/** A workspace's usage figures, by the filters the usage page chose. */
export const metricsKeys = {
  get: (workspaceId: string | undefined, filters: object) => [...workspaceKeys.all(workspaceId), 'metrics', filters] as const,
};
