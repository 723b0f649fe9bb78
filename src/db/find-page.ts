import type { EntityManager, EntityName, FilterQuery, FindOptions, Loaded } from '@mikro-orm/postgresql';
import { paginationOf, pageWindow, wantsCount, type PageParams } from '../shared/pagination.js';

/**
 * One page of entities in the list envelope of docs/concepts.md#conventions: the page (one extra row tells `hasNext`)
 * and, unless `withCount=false`, the total of `where`, fetched together.
 */
export async function findPage<Entity extends object, Hint extends string = never, Out = unknown>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<Entity>,
  params: PageParams,
  options: Omit<FindOptions<Entity, Hint>, 'offset' | 'limit'>,
  toOutput: (row: Loaded<Entity, Hint>) => Out,
) {
  const { offset, limit } = pageWindow(params);
  // MikroORM types `where` through index hints a generic caller cannot name; the callers' own
  // `where` is checked against their entity, so it is passed on as is.
  const filter = where as never;
  const [rows, total] = await Promise.all([
    em.find(entity, filter, { ...options, offset, limit } as FindOptions<Entity, Hint>),
    wantsCount(params) ? em.count(entity, filter) : Promise.resolve(null),
  ]);
  return { list: rows.slice(0, params.size).map(toOutput), pagination: paginationOf(params, rows.length, total) };
}
