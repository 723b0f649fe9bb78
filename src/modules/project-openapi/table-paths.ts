import { errorsOf } from '../../openapi/error-rules.js';
import { cacheHeaders, commonHeaders, errorResponse, IF_MATCH_PARAMETER, IF_NONE_MATCH_PARAMETER, notModifiedResponse } from '../../openapi/responses.js';
import { EXPAND_DESCRIPTION, FIELDS_DESCRIPTION, OP_DESCRIPTION, SEARCH_DESCRIPTION, tableFilterDescription, tableSortDescription } from '../query/index.js';
import { dataSchema, type DocColumn, type JsonSchema, type SchemaContext } from './column-schema.js';

/** A live table with its columns, in position order. */
export interface DocTable {
  id: string;
  key: string;
  name: string;
  description: string;
  defaultStatus: string;
  columns: DocColumn[];
}

/** The component names of one table's schemas (see `tableSchemaNames`). */
export interface TableNames {
  base: string;
  row: string;
  data: string;
  partialData: string;
  listItem: string;
  list: string;
  create: string;
  createData: string;
  update: string;
  updateData: string;
}

export const tableSchemaNames = (base: string): TableNames => ({
  base,
  row: base,
  data: `${base}Data`,
  partialData: `${base}PartialData`,
  listItem: `${base}ListItem`,
  list: `${base}List`,
  create: `${base}Create`,
  createData: `${base}CreateData`,
  update: `${base}Update`,
  updateData: `${base}UpdateData`,
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `GET .../referrers`: per referencing column, how many rows hold the id. */
const REFERRERS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['tableId', 'tableKey', 'column', 'count'],
    additionalProperties: false,
    properties: {
      tableId: { type: 'string', format: 'uuid' },
      tableKey: { type: 'string' },
      column: { type: 'string' },
      count: { type: 'integer', minimum: 1 },
    },
  },
};
const timestamp = (description: string) => ({ type: 'string', format: 'date-time', description });
const nullableTimestamp = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

/** The system fields of a row (docs/contents.md#contents). */
const SYSTEM_PROPERTIES = {
  id: { type: 'string', format: 'uuid' },
  slug: { type: ['string', 'null'], description: 'The value of the table’s slug column (null when it has none)' },
  status: ref('ContentStatus'),
  createdAt: timestamp('ISO-8601, UTC'),
  updatedAt: timestamp('ISO-8601, UTC'),
  publishedAt: nullableTimestamp('When it was last published'),
  publishAt: nullableTimestamp('When SCHEDULED contents get published'),
  version: { type: 'integer', minimum: 1, description: 'The row’s revision number (1 when created, +1 per change): `If-Match: "<id>:<version>"` or `ifVersion` writes only over it' },
};
const IF_VERSION = { type: 'integer', minimum: 1, description: 'Write only if the row is still at this version (else 412 PRECONDITION_FAILED); `If-Match` does the same' };
/** Left out for read keys, so never required. */
const HAS_DRAFT = { type: 'boolean', description: 'Whether the row has a pending draft (`version=draft` reads it); never returned to read keys' };

/** The component schemas of one table. */
export function tableSchemas(table: DocTable, names: TableNames, context: SchemaContext): Record<string, JsonSchema> {
  const object = (properties: JsonSchema, required: string[], description?: string) => ({
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required,
    additionalProperties: false,
  });
  const body = (data: string) => ({
    data: ref(data),
    status: { ...ref('ContentStatus'), description: `Default on create: the table’s defaultStatus (${table.defaultStatus})` },
    publishAt: { type: ['string', 'null'], format: 'date-time', description: 'Required (in the future) with status SCHEDULED' },
  });
  return {
    [names.data]: dataSchema(table.columns, context, 'read'),
    [names.partialData]: dataSchema(table.columns, context, 'read', true),
    [names.createData]: dataSchema(table.columns, context, 'create'),
    [names.updateData]: dataSchema(table.columns, context, 'update'),
    [names.row]: object({ ...SYSTEM_PROPERTIES, data: ref(names.data), hasDraft: HAS_DRAFT }, [...Object.keys(SYSTEM_PROPERTIES), 'data'], `A row of ${table.name}`),
    // `fields` selects what a list item carries: only `id` is always there.
    [names.listItem]: object({ ...SYSTEM_PROPERTIES, data: ref(names.partialData), hasDraft: HAS_DRAFT }, ['id']),
    [names.list]: object({ list: { type: 'array', items: ref(names.listItem) }, pagination: ref('ContentsPagination') }, ['list', 'pagination']),
    [names.create]: object(body(names.createData), ['data']),
    [names.update]: object(
      {
        ...body(names.updateData),
        draft: {
          type: 'boolean',
          description: 'true: save `data` as the pending draft of a PUBLISHED row, leaving the live values (publish it with `POST .../draft/publish`)',
        },
        ifVersion: IF_VERSION,
      },
      [],
    ),
  };
}

const param = (name: string, description: string, schema: JsonSchema, example?: unknown) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
  ...(example === undefined ? {} : { example }),
});

function listParameters(table: DocTable, context: SchemaContext) {
  const sortable = table.columns.find((c) => ['text', 'number', 'integer', 'date', 'datetime'].includes(c.type) && !c.settings.localized);
  return [
    param('page', 'Page number, from 1', { type: 'integer', minimum: 1, default: 1 }),
    param('size', 'Items per page, 1..1000', { type: 'integer', minimum: 1, maximum: 1000, default: 20 }),
    param('fields', FIELDS_DESCRIPTION, { type: 'string' }, ['id', 'status', ...table.columns.slice(0, 2).map((c) => c.name)].join(',')),
    param('sort', tableSortDescription(table.columns), { type: 'string' }, JSON.stringify([{ i: sortable?.name ?? 'createdAt', o: 'desc' }])),
    param('filter', tableFilterDescription(table.columns), { type: 'string' }, JSON.stringify([{ i: 'status', w: 'eq', v: 'PUBLISHED' }])),
    param('op', OP_DESCRIPTION, { type: 'string', enum: ['and', 'or'] }),
    param('cursor', '`pagination.nextCursor` of the previous page (keyset pagination; replaces `page`)', { type: 'string' }),
    localeParameter(context),
    ...expandParameter(table),
    param('search', SEARCH_DESCRIPTION, { type: 'string', maxLength: 500 }),
    param('withCount', '`false` skips counting: `total` and `pages` are then null', { type: 'string', enum: ['true', 'false'] }),
  ];
}

/** `expand`, for a table that has reference or file columns to expand. */
function expandParameter(table: DocTable) {
  const expandable = table.columns.filter((c) => c.type === 'reference' || c.type === 'file').map((c) => c.name);
  if (expandable.length === 0) return [];
  return [param('expand', `${EXPAND_DESCRIPTION}\n\nExpandable columns of this table: ${expandable.map((n) => `\`${n}\``).join(', ')}.`, { type: 'string' }, expandable.join(','))];
}

const localeParameter = (context: SchemaContext) =>
  param('locale', `Localized columns as plain values in this locale (falling back to ${context.defaultLocale})`, { type: 'string', enum: context.locales });

const IF_VERSION_PARAMETER = param('ifVersion', IF_VERSION.description, { type: 'integer', minimum: 1 });

const contentsIdParameter = {
  name: 'contentsId',
  in: 'path',
  required: true,
  description: 'The row’s id, or the value of the table’s slug column',
  schema: { type: 'string' },
};

/**
 * Success response plus every error the operation can answer, as on `/v1` (docs/reliability.md#errors).
 * `etag`: the row's `ETag` is answered (`read`), and `If-Match` taken (`write`, 412). `cacheable`:
 * a conditional GET with cache headers.
 */
function responses(method: string, success: number, content: JsonSchema | null, hasQuery: boolean, etag?: 'read' | 'write', cacheable = false) {
  const headers = commonHeaders(...(success === 201 ? (['Location'] as const) : etag && success !== 204 ? (['ETag'] as const) : []));
  const ok = content
    ? { description: success === 201 ? 'Created; `Location` names the new row' : 'OK', headers, content: { 'application/json': { schema: content } } }
    : { description: 'Deleted; no body', headers };
  // The path always names the table (and maybe a row) that may not exist (404).
  const errors = errorsOf({ method, tags: ['Contents'], authenticated: true, hasPathParams: true, hasQuery, success, conditional: etag === 'write' });
  if (cacheable) {
    // Conditional and cacheable (docs/scaling-out.md#http-caches-and-purging).
    ok.headers = { ...ok.headers, ...cacheHeaders(etag === 'read') } as typeof ok.headers;
    return { '200': ok, '304': notModifiedResponse(etag === 'read'), ...Object.fromEntries([...errors].map(([status, specific]) => [status, errorResponse(status, specific)])) };
  }
  return { [String(success)]: ok, ...Object.fromEntries([...errors].map(([status, specific]) => [status, errorResponse(status, specific)])) };
}

const jsonBody = (schema: string) => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });

/** The contents paths of one table, relative to the document's server (`/v1/{projectId}`). */
export function tablePaths(table: DocTable, names: TableNames, context: SchemaContext) {
  const tags = [table.key];
  const security = [{ bearerAuth: [] }];
  const operation = (verb: string, summary: string) => ({ operationId: `${verb}${names.base}`, summary, tags, security });
  return {
    [`/tables/${table.key}/contents`]: {
      get: {
        ...operation('list', `List ${table.name}`),
        description: 'Read keys see PUBLISHED rows only, whatever the filter.',
        parameters: [...listParameters(table, context), IF_NONE_MATCH_PARAMETER],
        responses: responses('get', 200, ref(names.list), true, undefined, true),
      },
      post: {
        ...operation('create', `Create a row of ${table.name}`),
        requestBody: jsonBody(names.create),
        responses: responses('post', 201, ref(names.row), false),
      },
    },
    [`/tables/${table.key}/contents/{contentsId}`]: {
      parameters: [contentsIdParameter],
      get: {
        ...operation('get', `Read a row of ${table.name} by id or slug`),
        parameters: [
          localeParameter(context),
          ...expandParameter(table),
          param('version', '`draft`: the row with its pending draft applied (read keys get 403); default `published`', { type: 'string', enum: ['published', 'draft'] }),
          IF_NONE_MATCH_PARAMETER,
        ],
        responses: responses('get', 200, ref(names.row), true, 'read', true),
      },
      put: {
        ...operation('update', `Update a row of ${table.name} (data merged, null clears)`),
        parameters: [IF_MATCH_PARAMETER],
        requestBody: jsonBody(names.update),
        responses: responses('put', 200, ref(names.row), false, 'write'),
      },
      delete: {
        ...operation('delete', `Delete a row of ${table.name}`),
        description: 'Reference columns that point at the row apply their `onDelete`: clear it, delete their rows too, or refuse (409).',
        parameters: [IF_MATCH_PARAMETER, IF_VERSION_PARAMETER],
        responses: responses('delete', 204, null, true, 'write'),
      },
    },
    [`/tables/${table.key}/contents/{contentsId}/draft`]: {
      parameters: [contentsIdParameter],
      delete: {
        ...operation('discardDraftOf', `Discard the pending draft of a row of ${table.name}`),
        description: '404 when the row has no draft.',
        parameters: [IF_MATCH_PARAMETER, IF_VERSION_PARAMETER],
        responses: responses('delete', 204, null, true, 'write'),
      },
    },
    [`/tables/${table.key}/contents/{contentsId}/draft/publish`]: {
      parameters: [contentsIdParameter],
      post: {
        ...operation('publishDraftOf', `Publish the pending draft of a row of ${table.name}`),
        description: 'The draft’s changes go live (checked now: 409, 422) and the row is published. 404 when the row has no draft.',
        parameters: [IF_MATCH_PARAMETER],
        responses: responses('post', 200, ref(names.row), false, 'write'),
      },
    },
    [`/tables/${table.key}/contents/{contentsId}/referrers`]: {
      parameters: [contentsIdParameter],
      get: {
        ...operation('referrersOf', `Where a row of ${table.name} is referenced`),
        responses: responses('get', 200, REFERRERS, false),
      },
    },
  };
}
