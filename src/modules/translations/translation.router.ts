import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import type { ProjectAccessLevel } from '../../auth/project-access.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import {
  createTranslationInput,
  listTranslationsInput,
  translationIdInput,
  translationListOutput,
  translationOutput,
  updateTranslationInput,
} from './translation.schema.js';
import {
  createTranslation,
  deleteTranslation,
  findTranslation,
  listTranslations,
  toTranslationOutput,
  updateTranslation,
} from './translation.service.js';

const TAG = 'Translations';
const collection = '/{projectId}/translations' as const;
const item = '/{projectId}/translations/{translationId}' as const;

/** `.../translations/{translationId}`: the translation must exist (404) before the body is checked (400). */
const translationProcedure = (level: ProjectAccessLevel) =>
  projectItemProcedure(level, (ctx, input) => findTranslation(ctx.em, ctx.access.project.id, rawPathParam(input, 'translationId')));

export const translationRouter = router({
  list: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List translations (filters: locale, key)', protect: true } , httpCache: 'translations' })
    .input(listTranslationsInput)
    .output(translationListOutput)
    .query(({ ctx, input }) => listTranslations(ctx.em, ctx.access.project.id, input)),

  create: projectProcedure('write')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a translation', protect: true }, successStatus: 201 })
    .input(createTranslationInput)
    .output(translationOutput)
    .mutation(async ({ ctx, input }) => {
      const translation = await createTranslation(ctx.em, ctx.access.project, input);
      markCreated(ctx, translation.id);
      return toTranslationOutput(translation);
    }),

  get: translationProcedure('read')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a translation', protect: true } , httpCache: 'translations' })
    .input(translationIdInput)
    .output(translationOutput)
    .query(({ ctx }) => toTranslationOutput(ctx.item)),

  update: translationProcedure('write')
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Update a translation (key, locale, value)', protect: true } })
    .input(updateTranslationInput)
    .output(translationOutput)
    .mutation(async ({ ctx, input }) => toTranslationOutput(await updateTranslation(ctx.em, ctx.access.project, ctx.item, input))),

  delete: translationProcedure('write')
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a translation', protect: true }, successStatus: 204 })
    .input(translationIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteTranslation(ctx.em, ctx.item);
      markNoContent(ctx);
    }),
});
