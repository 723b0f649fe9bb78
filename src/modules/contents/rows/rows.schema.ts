import { z } from 'zod';
import { isoDate, jsonObject, pathId } from '../../../shared/schemas.js';
import { pageParams, paginationSchema } from '../../../shared/pagination.js';
import {
  EXPAND_DESCRIPTION,
  FIELDS_DESCRIPTION,
  FILTER_DESCRIPTION,
  FILTER_EXAMPLE,
  OP_DESCRIPTION,
  SEARCH_DESCRIPTION,
  SORT_DESCRIPTION,
  MAX_SEARCH_LENGTH,
  SORT_EXAMPLE,
} from '../../query/index.js';
import { contentStatus } from '../../tables/table.schema.js';

const tablePath = { projectId: pathId('Project id'), tableId: pathId('Table id or key') };
/** The path of one row: `/{projectId}/tables/{tableId}/contents/{contentsId}` (and what hangs under it). */
export const contentsPath = { ...tablePath, contentsId: pathId('Contents id, or the value of the slug column') };

/** The version a write of one row expects (docs/contents.md#concurrent-edits); `If-Match` says the same over HTTP. */
export const ifVersion = z
  .number()
  .int()
  .min(1)
  .max(2_147_483_647)
  .optional()
  .describe('Write only if the row is still at this version (its `version`), else 412 PRECONDITION_FAILED and nothing is written; the `If-Match` header does the same. Absent: the last write wins.');

export const contentsOutput = z.object({
  id: z.uuid(),
  slug: z.string().nullable().optional().describe("The value of the table's slug column (null when it has none)"),
  status: contentStatus.optional(),
  data: z.record(z.string(), z.unknown()).meta({
    description: 'Column name → value (localized columns: { locale: value }). `GET /v1/{projectId}/openapi.json` types it per table.',
    examples: [{ title: { en: 'Hello world', fr: 'Bonjour' }, slug: 'hello-world', price: 12 }],
  }),
  createdAt: isoDate.optional(),
  updatedAt: isoDate.optional(),
  publishedAt: isoDate.nullable().optional(),
  publishAt: isoDate.nullable().optional(),
  version: z
    .number()
    .int()
    .optional()
    .describe('The row’s revision number (1 when created, +1 per change): send it back as `If-Match: "<id>:<version>"` (or `ifVersion`) to write only over this version (docs/contents.md#concurrent-edits)'),
  hasDraft: z
    .boolean()
    .optional()
    .describe('Whether the row has a pending draft; left out for callers that do not read drafts (read keys, custom roles without `drafts`)'),
});
export type ContentsOutput = z.infer<typeof contentsOutput>;

const data = jsonObject().meta({
  description: 'Column name → value; a localized column takes { "<locale>": value } or a plain value for the default locale',
  examples: [{ title: { en: 'Hello world', fr: 'Bonjour' }, price: 12 }],
});
const publishAt = z.iso.datetime({ offset: true }).describe('When SCHEDULED contents get published');

export const createContentsInput = z.object({
  ...tablePath,
  data,
  status: contentStatus.optional().describe("Default: the table's defaultStatus"),
  publishAt: publishAt.optional(),
});
export type CreateContentsInput = z.infer<typeof createContentsInput>;

export const updateContentsInput = z.object({
  ...contentsPath,
  data: data.optional().meta({
    description:
      'Merged: given columns replace, absent ones stay, null clears. A localized column merges per locale: { "fr": "…" } changes French only and keeps the other locales, { "fr": null } removes French, a plain value sets the default locale only',
    examples: [{ price: 14 }],
  }),
  status: contentStatus.optional(),
  publishAt: publishAt.nullable().optional(),
  ifVersion,
  draft: z
    .boolean()
    .optional()
    .describe(
      'true: save `data` as the pending draft of a PUBLISHED row (merged into it, validated as an update) and leave the live values as they are; publish it with POST .../draft/publish. 409 INVALID_TRANSITION for a row that is not PUBLISHED.',
    ),
});
export type UpdateContentsInput = z.infer<typeof updateContentsInput>;

const locale = z.string().max(35).optional().describe('Return localized columns as plain values in this locale (fallback: the default locale)');

const fields = z.string().max(5000).optional().meta({ description: FIELDS_DESCRIPTION, examples: ['title,slug,status'] });

const expand = z.string().max(1000).optional().meta({ description: EXPAND_DESCRIPTION, examples: ['author,cover'] });

export const getContentsInput = z.object({
  ...contentsPath,
  fields,
  locale,
  expand,
  version: z
    .enum(['published', 'draft'])
    .optional()
    .describe('draft: the row with its pending draft applied (the row itself when it has none). Read keys get 403. Default: published, the live values.'),
});
export const deleteContentsInput = z.object({ ...contentsPath, ifVersion });
export const referrersInput = z.object(contentsPath);

export const referrersOutput = z
  .array(
    z.object({
      tableId: z.uuid(),
      tableKey: z.string(),
      column: z.string().describe('The reference column that holds the id'),
      count: z.number().int().describe('Rows of that table whose column holds it (read keys: PUBLISHED rows only)'),
    }),
  )
  .describe('Every live reference to the row, per referencing column; columns with none are left out');

export const listContentsInput = z.object({
  ...tablePath,
  page: pageParams.page,
  size: pageParams.size,
  fields,
  sort: z.string().max(5000).optional().meta({ description: SORT_DESCRIPTION, examples: [SORT_EXAMPLE] }),
  filter: z.string().max(20_000).optional().meta({ description: FILTER_DESCRIPTION, examples: [FILTER_EXAMPLE] }),
  op: z.string().max(10).optional().describe(OP_DESCRIPTION),
  cursor: z.string().max(4000).optional().describe('pagination.nextCursor of the previous page (keyset pagination; replaces page)'),
  locale,
  withCount: pageParams.withCount,
  expand,
  search: z.string().max(MAX_SEARCH_LENGTH).optional().meta({ description: SEARCH_DESCRIPTION, examples: ['"north sea" ferry -cancelled'] }),
});
export type ListContentsInput = z.infer<typeof listContentsInput>;

/** A list item carries only the fields asked for (`fields`); `id` always. */
export const contentsListItem = contentsOutput.extend({ data: contentsOutput.shape.data.optional() });
export type ContentsListItem = z.infer<typeof contentsListItem>;

export const contentsListOutput = z.object({
  list: z.array(contentsListItem),
  pagination: paginationSchema.extend({
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
  }),
});

export type ContentsList = z.infer<typeof contentsListOutput>;

/**
 * The list procedure's output: documented as `contentsListOutput`, but not parsed again at run
 * time. `toListItem` builds each item field by field from the compiled select, and re-checking
 * up to 1000 rows cost more than a third of the JSON encoding (measured: ~1.2 ms per 1000 rows).
 */
const { $schema: _dialect, ...contentsListJsonSchema } = z.toJSONSchema(contentsListOutput, { target: 'draft-2020-12', io: 'output' });
export const contentsListResponse = z
  .custom<ContentsList>((value) => typeof value === 'object' && value !== null)
  .meta({ override: contentsListJsonSchema as never });

/** At most this many rows in one bulk status change (one transaction). */
export const BULK_STATUS_MAX = 1000;

export const setStatusInput = z.object({
  ...tablePath,
  ids: z
    .array(z.uuid())
    .min(1)
    .max(BULK_STATUS_MAX)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'ids must not repeat')
    .describe(`Row ids, 1 to ${BULK_STATUS_MAX}, each once`),
  status: z.enum(['DRAFT', 'PUBLISHED', 'ARCHIVED']).describe('The status every row is given'),
});
export type SetStatusInput = z.infer<typeof setStatusInput>;

export const setStatusOutput = z.object({
  results: z
    .array(
      z.object({
        id: z.string(),
        ok: z.boolean(),
        code: z.string().optional().describe('A refused row: the error code its single update would answer'),
        message: z.string().optional(),
      }),
    )
    .describe('One per id, in the order given'),
});
