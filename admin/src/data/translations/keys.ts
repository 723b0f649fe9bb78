import { projectKeys } from '../projects/keys.js';

export const translationKeys = {
  list: (projectId: string) => [...projectKeys.all(projectId), 'translations'] as const,
};
