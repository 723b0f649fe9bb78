import { z } from 'zod';
import { rawPathParam } from '../../auth/access.js';
import { markCreated, markNoContent } from '../../trpc/context.js';
import { projectItemProcedure, projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { categoryIdInput, categoryListOutput, categoryOutput, createCategoryInput, listCategoriesInput, updateCategoryInput } from './category.schema.js';
import { createCategory, deleteCategory, findCategory, listCategories, toCategoryOutput, updateCategory } from './category.service.js';

const TAG = 'Categories';
const collection = '/{projectId}/categories' as const;
const item = '/{projectId}/categories/{categoryId}' as const;

/** `.../categories/{categoryId}` written: the category must exist (404) before the body is checked (400). */
const categoryWrite = projectItemProcedure('write', (ctx, input) => findCategory(ctx.em, ctx.access.project.id, rawPathParam(input, 'categoryId')));

export const categoryRouter = router({
  list: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: collection, tags: [TAG], summary: 'List categories (filter: parentId)', protect: true } , httpCache: 'categories' })
    .input(listCategoriesInput)
    .output(categoryListOutput)
    .query(({ ctx, input }) => listCategories(ctx.em, ctx.access.project.id, input)),

  create: projectProcedure('write')
    .meta({ openapi: { method: 'POST', path: collection, tags: [TAG], summary: 'Create a category', protect: true }, successStatus: 201 })
    .input(createCategoryInput)
    .output(categoryOutput)
    .mutation(async ({ ctx, input }) => {
      const category = await createCategory(ctx.em, ctx.access.project.id, input);
      markCreated(ctx, category.id);
      return toCategoryOutput(category);
    }),

  // Reading one by id: the create's Location has to lead somewhere.
  get: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: item, tags: [TAG], summary: 'Read a category', protect: true } , httpCache: 'categories' })
    .input(categoryIdInput)
    .output(categoryOutput)
    .query(async ({ ctx, input }) => toCategoryOutput(await findCategory(ctx.em, ctx.access.project.id, input.categoryId))),

  update: categoryWrite
    .meta({ openapi: { method: 'PUT', path: item, tags: [TAG], summary: 'Rename or move a category (name, slug, description, parentId)', protect: true } })
    .input(updateCategoryInput)
    .output(categoryOutput)
    .mutation(async ({ ctx, input }) => toCategoryOutput(await updateCategory(ctx.em, ctx.access.project.id, ctx.item, input))),

  delete: categoryWrite
    .meta({ openapi: { method: 'DELETE', path: item, tags: [TAG], summary: 'Delete a category (its subcategories become top-level)', protect: true }, successStatus: 204 })
    .input(categoryIdInput)
    .output(z.void())
    .mutation(async ({ ctx }) => {
      await deleteCategory(ctx.em, ctx.item);
      markNoContent(ctx);
    }),
});
