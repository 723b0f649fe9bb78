import type { RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { categoryKeys } from './keys.js';

export type Category = RouterOutputs['categories']['list']['list'][number];

/** Every category of the project (the tree is drawn from their parentId), one page of the largest size at a time. */
export function useCategories(projectId: string) {
  return useApi(categoryKeys.list(projectId), async (client) => {
    const all: Category[] = [];
    for (let page = 1; ; page++) {
      const { list, pagination } = await client.categories.list.query({ projectId, ...ALL, page, withCount: 'false' });
      all.push(...list);
      if (!pagination.hasNext) return all;
    }
  });
}
