import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../db/find-page.js';
import { badRequest, conflict, fieldInvalid, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { slugify } from '../contents/index.js';
import { CategorySchema, type Category } from './category.entity.js';
import type { CategoryOutput, CreateCategoryInput, ListCategoriesInput, UpdateCategoryInput } from './category.schema.js';

export const toCategoryOutput = (c: Category): CategoryOutput => ({
  id: c.id,
  name: c.name,
  slug: c.slug,
  description: c.description,
  parentId: c.parentId ?? null,
  createdAt: iso(c.createdAt),
});

export async function listCategories(em: EntityManager, projectId: string, params: ListCategoriesInput) {
  const where = {
    project: projectId,
    ...(params.parentId === undefined ? {} : { parentId: params.parentId === 'null' ? null : params.parentId.toLowerCase() }),
  };
  return findPage(em, CategorySchema, where, params, { orderBy: { createdAt: 'asc', id: 'asc' } }, toCategoryOutput);
}

export async function findCategory(em: EntityManager, projectId: string, categoryId: string): Promise<Category> {
  const category = isUuid(categoryId) ? await em.findOne(CategorySchema, { id: categoryId.toLowerCase(), project: projectId }) : null;
  if (!category) throw notFound('Category');
  return category;
}

/**
 * docs/resources.md#categories: `slug` is derived from `name` when omitted and unique per project. A derived slug
 * that is taken is a 409 like a given one: the caller picks another name or slug.
 */
export async function createCategory(em: EntityManager, projectId: string, input: CreateCategoryInput): Promise<Category> {
  const slug = input.slug ?? slugify(input.name);
  if (!slug) throw badRequest('slug: required when name has no letters or digits to derive it from');
  const parentId = input.parentId?.toLowerCase() ?? null;
  if (parentId && (await em.count(CategorySchema, { id: parentId, project: projectId })) === 0) {
    throw fieldInvalid('parentId', 'no category with this id in the project');
  }
  const category = em.create(CategorySchema, {
    project: projectId,
    name: input.name,
    slug,
    description: input.description ?? '',
    parentId,
  });
  await flushSlug(em, slug);
  return category;
}

async function flushSlug(em: EntityManager, slug: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict(`slug: "${slug}" is already used by another category of this project`);
    throw error;
  }
}

/** Most levels a move walks up from the new parent: deeper trees are refused rather than walked forever. */
const MAX_DEPTH = 1000;

/**
 * A move must keep the categories a tree: the new parent is a category of the project that is
 * neither the category itself nor one under it (it would become its own ancestor).
 */
async function checkParent(em: EntityManager, projectId: string, category: Category, parentId: string): Promise<void> {
  let current: string | null = parentId;
  for (let depth = 0; current !== null; depth++) {
    if (current === category.id) throw fieldInvalid('parentId', 'a category cannot move under itself or one of its own subcategories');
    if (depth >= MAX_DEPTH) throw fieldInvalid('parentId', `the tree is deeper than ${MAX_DEPTH} levels there`);
    const step: Category | null = await em.findOne(CategorySchema, { id: current, project: projectId });
    if (!step) throw fieldInvalid('parentId', 'no category with this id in the project');
    current = step.parentId ?? null;
  }
}

/** docs/resources.md#categories: rename, new slug or description, or a move in the tree. */
export async function updateCategory(em: EntityManager, projectId: string, category: Category, input: UpdateCategoryInput): Promise<Category> {
  if (input.parentId !== undefined && input.parentId !== null) await checkParent(em, projectId, category, input.parentId.toLowerCase());
  if (input.name !== undefined) category.name = input.name;
  if (input.slug !== undefined) category.slug = input.slug;
  if (input.description !== undefined) category.description = input.description;
  if (input.parentId !== undefined) category.parentId = input.parentId?.toLowerCase() ?? null;
  await flushSlug(em, category.slug);
  return category;
}

/** Deleting a category makes its subcategories top-level ones (the database sets their parent to null). */
export async function deleteCategory(em: EntityManager, category: Category): Promise<void> {
  await em.remove(category).flush();
}
