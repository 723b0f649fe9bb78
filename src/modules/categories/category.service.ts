import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { findPage } from '../../db/find-page.js';
import { badRequest, conflict, fieldInvalid, notFound } from '../../errors/app-error.js';
import { isUuid } from '../../shared/ids.js';
import { iso } from '../../shared/schemas.js';
import { slugify } from '../contents/index.js';
import { CategorySchema, type Category } from './category.entity.js';
import type { CategoryOutput, CreateCategoryInput, ListCategoriesInput } from './category.schema.js';

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
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict(`slug: "${slug}" is already used by another category of this project`);
    throw error;
  }
  return category;
}
