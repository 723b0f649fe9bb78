import { z } from 'zod';
import { isoDate, nameString, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { SLUG } from '../contents/index.js';

export const categoryOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  parentId: z.uuid().nullable(),
  createdAt: isoDate,
});
export type CategoryOutput = z.infer<typeof categoryOutput>;

const projectPath = { projectId: pathId('Project id') };

const slug = z.string().max(200).regex(SLUG, 'must match ^[a-z0-9]+(?:-[a-z0-9]+)*$');

export const listCategoriesInput = z.object({
  ...projectPath,
  ...pageParams,
  parentId: z
    .union([z.uuid(), z.literal('null')])
    .optional()
    .describe('Only the children of this category; `null` for top-level categories'),
});
export type ListCategoriesInput = z.infer<typeof listCategoriesInput>;
export const categoryListOutput = listOf(categoryOutput);

export const createCategoryInput = z.object({
  ...projectPath,
  name: nameString,
  slug: slug.optional().describe('Default: derived from name (lower-case ASCII, dashes); unique per project'),
  description: z.string().max(10_000).optional(),
  parentId: z.uuid().nullable().optional().describe('A category of the same project (422 otherwise)'),
});
export type CreateCategoryInput = z.infer<typeof createCategoryInput>;

const categoryPath = { ...projectPath, categoryId: pathId('Category id') };
export const categoryIdInput = z.object(categoryPath);

/** A rename, a new slug or description, or a move (`parentId`; null: to the top level). */
export const updateCategoryInput = z.object({
  ...categoryPath,
  name: nameString.optional(),
  slug: slug.optional().describe('Unique per project'),
  description: z.string().max(10_000).optional(),
  parentId: z.uuid().nullable().optional().describe('Another category of the project, not the category itself nor one under it (422); null: top level'),
});
export type UpdateCategoryInput = z.infer<typeof updateCategoryInput>;
