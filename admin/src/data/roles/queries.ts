import type { RouterInputs, RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { roleKeys } from './keys.js';

export type Role = RouterOutputs['roles']['list']['list'][number];
export type Rule = Role['rules'][number];
export type Explain = RouterOutputs['access']['explain'];
export type ExplainInput = Omit<RouterInputs['access']['explain'], 'projectId'>;

/** The project's roles: the built-in ones first (project admins only). */
export function useRoles(projectId: string, options: { enabled?: boolean } = {}) {
  return useApi(roleKeys.list(projectId), (client) => client.roles.list.query({ projectId, ...ALL }), options);
}

/** What a role, a key or a member may do on a table (GET …/access/explain). */
export function useExplain(projectId: string, input: ExplainInput | null) {
  const subject = Object.fromEntries(Object.entries(input ?? {}).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  return useApi(roleKeys.explain(projectId, subject), (client) => client.access.explain.query({ projectId, ...input! }), { enabled: input !== null });
}
