import { markCreated } from '../../trpc/context.js';
import { projectProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/trpc.js';
import { categoryIdInput, categoryListOutput, categoryOutput, createCategoryInput, listCategoriesInput } from './category.schema.js';
import { createCategory, findCategory, listCategories, toCategoryOutput } from './category.service.js';

const TAG = 'Categories';
const collection = '/{projectId}/categories' as const;
const item = '/{projectId}/categories/{categoryId}' as const;

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
});
