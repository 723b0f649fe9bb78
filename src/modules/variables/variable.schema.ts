import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';

export const VARIABLE_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Any JSON value, `null` included, but present. An unknown is nothing trpc-to-openapi's in-place
 * coercion of body schemas touches (see shared/schemas): `"42"` stays a string, `42` a number.
 */
export const jsonValue = z
  .unknown()
  .refine((v) => v !== undefined, 'Required')
  .describe('Any JSON value: string, number, boolean, null, array or object');

export const variableOutput = z.object({
  id: z.uuid(),
  key: z.string(),
  value: z.unknown().describe('Any JSON value'),
  description: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type VariableOutput = z.infer<typeof variableOutput>;

const projectPath = { projectId: pathId('Project id') };

export const listVariablesInput = z.object({
  ...projectPath,
  ...pageParams,
  key: z.string().max(128).optional().describe('Only the variable with this key'),
});
export type ListVariablesInput = z.infer<typeof listVariablesInput>;
export const variableListOutput = listOf(variableOutput);

export const createVariableInput = z.object({
  ...projectPath,
  key: z.string().regex(VARIABLE_KEY, 'must match ^[A-Za-z_][A-Za-z0-9_.-]{0,127}$').describe('Unique per project'),
  value: jsonValue,
  description: z.string().max(10_000).optional(),
});
export type CreateVariableInput = z.infer<typeof createVariableInput>;

const variablePath = { ...projectPath, variableId: pathId('Variable id') };
export const variableIdInput = z.object(variablePath);

/** A new value or description; the key stays (clients look a variable up by it). */
export const updateVariableInput = z.object({
  ...variablePath,
  value: z.unknown().optional().describe('Any JSON value: string, number, boolean, null, array or object'),
  description: z.string().max(10_000).optional(),
});
export type UpdateVariableInput = z.infer<typeof updateVariableInput>;
