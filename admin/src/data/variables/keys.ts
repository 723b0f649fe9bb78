import { projectKeys } from '../projects/keys.js';

export const variableKeys = {
  list: (projectId: string) => [...projectKeys.all(projectId), 'variables'] as const,
};
