import type { RouterOutputs } from 'tabula/client';
import { ALL, useApi } from '../api.js';
import { translationKeys } from './keys.js';

export type Translation = RouterOutputs['translations']['list']['list'][number];

/** Every translation of the project (the grid pivots them by key and locale). */
export function useTranslations(projectId: string) {
  return useApi(translationKeys.list(projectId), async (client) => {
    const all: Translation[] = [];
    for (let page = 1; ; page++) {
      const { list, pagination } = await client.translations.list.query({ projectId, ...ALL, page, withCount: 'false' });
      all.push(...list);
      if (!pagination.hasNext) return all;
    }
  });
}
