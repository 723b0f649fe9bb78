import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../db/find-page.js';
import { conflict, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { VariableSchema, type Variable } from './variable.entity.js';
import type { CreateVariableInput, ListVariablesInput, UpdateVariableInput, VariableOutput } from './variable.schema.js';

export const toVariableOutput = (v: Variable): VariableOutput => ({
  id: v.id,
  key: v.key,
  value: v.value ?? null,
  description: v.description,
  createdAt: iso(v.createdAt),
  updatedAt: iso(v.updatedAt),
});

export async function listVariables(em: EntityManager, projectId: string, params: ListVariablesInput) {
  const where = { project: projectId, ...(params.key === undefined ? {} : { key: params.key }) };
  return findPage(em, VariableSchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toVariableOutput);
}

export async function findVariable(em: EntityManager, projectId: string, variableId: string): Promise<Variable> {
  const variable = isUuid(variableId) ? await em.findOne(VariableSchema, { id: variableId.toLowerCase(), project: projectId }) : null;
  if (!variable) throw notFound('Variable');
  return variable;
}

export async function createVariable(em: EntityManager, projectId: string, input: CreateVariableInput): Promise<Variable> {
  const variable = em.create(VariableSchema, {
    project: projectId,
    key: input.key,
    value: input.value ?? null,
    description: input.description ?? '',
  });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict(`key: "${input.key}" is already used by another variable of this project`);
    throw error;
  }
  return variable;
}

/** docs/resources.md#variables: a new value (`null` included) or description. */
export async function updateVariable(em: EntityManager, variable: Variable, input: UpdateVariableInput): Promise<Variable> {
  if (input.value !== undefined) variable.value = input.value;
  if (input.description !== undefined) variable.description = input.description;
  await em.flush();
  return variable;
}

export async function deleteVariable(em: EntityManager, variable: Variable): Promise<void> {
  await em.remove(variable).flush();
}
