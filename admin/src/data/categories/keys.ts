import { projectKeys } from '../projects/keys.js';

export const categoryKeys = {
  list: (projectId: string) => [...projectKeys.all(projectId), 'categories'] as const,
};
