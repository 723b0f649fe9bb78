import { markCreated } from '../../trpc/context.js';
import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { createVariableInput, listVariablesInput, variableIdInput, variableListOutput, variableOutput } from './variable.schema.js';
import { createVariable, findVariable, listVariables, toVariableOutput } from './variable.service.js';

const TAG = 'Variables';
const collection = '/{projectId}/variables' as const;
const item = '/{projectId}/variables/{variableId}' as const;

export const variableRouter = router({
  list: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List variables (filter: key)', protect: true } , httpCache: 'variables' })
    .input(listVariablesInput)
    .output(variableListOutput)
    .query(({ ctx, input }) => listVariables(ctx.em, ctx.access.project.id, input)),

  create: projectProcedure('write')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a variable', protect: true }, successStatus: 201 })
    .input(createVariableInput)
    .output(variableOutput)
    .mutation(async ({ ctx, input }) => {
      const variable = await createVariable(ctx.em, ctx.access.project.id, input);
      markCreated(ctx, variable.id);
      return toVariableOutput(variable);
    }),

  // Reading one by id: the create's Location has to lead somewhere.
  get: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a variable', protect: true } , httpCache: 'variables' })
    .input(variableIdInput)
    .output(variableOutput)
    .query(async ({ ctx, input }) => toVariableOutput(await findVariable(ctx.em, ctx.access.project.id, input.variableId))),
});
