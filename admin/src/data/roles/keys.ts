import { projectKeys } from '../projects/keys.js';

/** A project's roles, and the explain answers (refreshed with them: a rule change changes the answer). */
export const roleKeys = {
  all: (projectId: string) => [...projectKeys.all(projectId), 'roles'] as const,
  list: (projectId: string) => [...roleKeys.all(projectId), 'list'] as const,
  explain: (projectId: string, subject: Record<string, string>) => [...roleKeys.all(projectId), 'explain', subject] as const,
};
