import type { RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { variableKeys } from './keys.js';

export type Variable = RouterOutputs['variables']['list']['list'][number];

export function useVariables(projectId: string) {
  return useApi(variableKeys.list(projectId), (client) => client.variables.list.query({ projectId, ...ALL }));
}
