import { z } from 'zod';

/**
 * Query parameters every list takes (docs/concepts.md#conventions). Out-of-range values are 400, never clamped. On
 * `/v1` they are read from the query string by src/http/v1-query.ts: plain decimal digits only
 * (no `0x10`, `010`, `1e1`, spaces or empty value), each given once.
 */
export const pageParams = {
  page: z.number().int().min(1).default(1).describe('Page number, from 1 (decimal digits)'),
  size: z.number().int().min(1).max(1000).default(20).describe('Items per page, 1..1000 (decimal digits)'),
  // A query string carries text: `z.stringbool()` reads "false" as false (z.boolean() would not);
  // only the two words, not zod's default yes/no, on/off, 1/0.
  withCount: z
    .stringbool({ truthy: ['true'], falsy: ['false'], case: 'sensitive' })
    .optional()
    .describe('false skips counting: total and pages are then null'),
};

export interface PageParams {
  page: number;
  size: number;
  withCount?: boolean;
}

export const paginationSchema = z.object({
  page: z.number().int(),
  size: z.number().int(),
  total: z.number().int().nullable(),
  pages: z.number().int().nullable(),
  hasNext: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ list: z.array(item), pagination: paginationSchema });

export const wantsCount = (params: PageParams): boolean =>
  params.withCount !== false;

/** SQL offset/limit for a page; one extra row tells `hasNext` when not counting. */
export function pageWindow(params: PageParams): { offset: number; limit: number } {
  return { offset: (params.page - 1) * params.size, limit: params.size + 1 };
}

/**
 * The pagination object for a page whose query fetched `fetched` rows (at most size + 1)
 * and, when counting, found `total` matches.
 */
export function paginationOf(params: PageParams, fetched: number, total: number | null): Pagination {
  const { page, size } = params;
  return {
    page,
    size,
    total,
    pages: total === null ? null : Math.ceil(total / size),
    hasNext: fetched > size,
  };
}
