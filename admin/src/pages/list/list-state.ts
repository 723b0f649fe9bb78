import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { parseConditions, type Condition } from './filters.js';

/**
 * The list's state lives in the address (`?page=2&sort=-price&q=ferry&filter=[…]`), so a reload,
 * the back button or a shared link shows the same rows. `after` is the keyset cursor of the page
 * shown (docs/contents.md#list-queries): deep pages are read by cursor, not by offset.
 */
export const PAGE_SIZES = [25, 50, 100] as const;
const DEFAULT_SIZE = 25;

export interface SortState {
  field: string;
  direction: 'asc' | 'desc';
}

export interface ListState {
  page: number;
  size: number;
  after: string | null;
  /** null: the API's default order (newest first; by relevance with a search). */
  sort: SortState | null;
  search: string;
  conditions: Condition[];
  op: 'and' | 'or';
}

function positive(value: string | null, fallback: number): number {
  const n = value === null ? NaN : Number(value);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}

export function readState(params: URLSearchParams): ListState {
  const sort = params.get('sort');
  const size = positive(params.get('size'), DEFAULT_SIZE);
  return {
    page: positive(params.get('page'), 1),
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_SIZE,
    after: params.get('after'),
    sort: sort ? { field: sort.replace(/^-/, ''), direction: sort.startsWith('-') ? 'desc' : 'asc' } : null,
    search: params.get('q') ?? '',
    conditions: parseConditions(params.get('filter')),
    op: params.get('op') === 'or' ? 'or' : 'and',
  };
}

function writeState(state: ListState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.page > 1) params.set('page', String(state.page));
  if (state.page > 1 && state.after) params.set('after', state.after);
  if (state.size !== DEFAULT_SIZE) params.set('size', String(state.size));
  if (state.sort) params.set('sort', `${state.sort.direction === 'desc' ? '-' : ''}${state.sort.field}`);
  if (state.search) params.set('q', state.search);
  if (state.conditions.length > 0) params.set('filter', JSON.stringify(state.conditions));
  if (state.op === 'or' && state.conditions.length > 1) params.set('op', 'or');
  return params;
}

/**
 * The state and its setter. A change of what is listed (sort, search, filter, size) goes back to
 * the first page; typing in the search box replaces the history entry instead of adding one a key.
 */
export function useListState() {
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => readState(params), [params]);
  const update = useCallback(
    (change: Partial<ListState>, options: { replace?: boolean } = {}) => {
      setParams(
        (current) => {
          const before = readState(current);
          const paging = 'page' in change || 'after' in change;
          const next = { ...before, ...(paging ? {} : { page: 1, after: null }), ...change };
          return writeState(next);
        },
        { replace: options.replace },
      );
    },
    [setParams],
  );
  return [state, update] as const;
}
