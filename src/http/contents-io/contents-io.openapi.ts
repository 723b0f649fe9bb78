import { FIELDS_DESCRIPTION, FILTER_DESCRIPTION, OP_DESCRIPTION, SEARCH_DESCRIPTION, SORT_DESCRIPTION } from '../../modules/query/index.js';

/*
 * The OpenAPI face of contents import and export (contents-io-routes.ts), which the generator
 * cannot see: their bodies stream.
 */

const pathParams = [
  { name: 'projectId', in: 'path', required: true, description: 'Project id', schema: { type: 'string' } },
  { name: 'tableId', in: 'path', required: true, description: 'Table id or key', schema: { type: 'string' } },
];
const query = (name: string, description: string, schema: object = { type: 'string' }) => ({ name, in: 'query', required: false, description, schema });

const IMPORT_DESCRIPTION = [
  'Streams rows into the table, up to IMPORT_MAX_BYTES (default 1 GiB), in one transaction: when any line is wrong nothing is written,',
  'and the 422 lists the first 100 offending lines (`field`: `line 17: data.price`). Every line is checked as a single create (or, matched by',
  '`mode=upsert`, a single update) is: column rules, defaults, derived slugs (made free as on create), unique values (against stored rows and',
  'earlier lines), references (to stored rows or to rows anywhere in the same body) and files. One `contents.imported` event `{ tableId, count }`',
  'fires instead of one event a row; each row gets its revision.',
  '',
  '`application/x-ndjson`: one `{ "data": {…}, "status"?, "publishAt"?, "id"? }` object a line (`id`: the new row’s id, or the row an upsert updates).',
  '`text/csv`: a header row of column names (`title.fr` for a locale of a localized column; `id`, `status`, `publishAt` for the row’s own fields;',
  '`data.<name>` for a column named like one of those), one row a line; arrays and JSON values as JSON text; an empty cell leaves the column out.',
  'A header naming a column twice (`title.fr` twice, or `title` and the default locale’s `title.en`) is 422 naming it.',
  '',
  'Refused as a single write refuses them, naming line and field: a NUL or an unpaired UTF-16 surrogate in any string (`line 3: data.meta.notes.0`),',
  'and two lines creating rows with the same `id` (`line 4: id`). With `mode=upsert`, a localized column merges per locale as on PUT:',
  '`{"title":{"fr":"…"}}` (or a CSV `title.fr` column alone) changes French only. Each query parameter is given once (else 400 INVALID_QUERY).',
  '',
  'A caller holding a custom role imports what its rules let it write: each line is checked as its create (or update) would be; the 403 names',
  'the first 100 refused lines (`field`: `line 3`) and nothing is written. Refused lines are answered before wrong values (422).',
].join('\n');

export const importOperation = {
  operationId: 'contents-import',
  tags: ['Contents'],
  summary: 'Import rows (NDJSON or CSV, streamed, all or nothing)',
  description: IMPORT_DESCRIPTION,
  security: [{ bearerAuth: [] }],
  parameters: [...pathParams, query('mode', '`create` (default) adds rows; `upsert` updates the rows matched by `id` or by the slug column’s value (merged as PUT) and adds the others', { type: 'string', enum: ['create', 'upsert'] })],
  requestBody: {
    required: true,
    content: {
      'application/x-ndjson': { schema: { type: 'string' }, example: '{"data":{"title":"Hello","price":12},"status":"PUBLISHED"}\n{"data":{"title":"World"}}\n' },
      'text/csv': { schema: { type: 'string' }, example: 'title,title.fr,price,status\nHello,Bonjour,12,PUBLISHED\n' },
    },
  },
  responses: {
    '200': {
      description: 'Every line written',
      content: { 'application/json': { schema: { type: 'object', required: ['imported'], properties: { imported: { type: 'integer', description: 'Rows written (created or updated)' } } } } },
    },
    '422': {
      description: '`VALIDATION_ERROR`: a line is wrong; nothing was written. `details` names the first 100 offending lines',
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          example: { error: { code: 'VALIDATION_ERROR', message: 'Validation failed: line 17: data.price', details: [{ field: 'line 17: data.price', message: 'must be at least 0' }] } },
        },
      },
    },
  },
};

export const exportOperation = {
  operationId: 'contents-export',
  tags: ['Contents'],
  summary: 'Export rows (NDJSON or CSV, streamed)',
  description:
    'Every row the list with the same `filter`, `search`, `sort`, `fields` and `locale` returns, in its order, without pages, read from one snapshot (read keys: PUBLISHED rows only). ' +
    'NDJSON: one list item a line. CSV: a header of `id`, the system fields and the columns asked for (a localized column once per locale, `title.fr`, unless `locale` is given); arrays and JSON values as JSON text. ' +
    "CSV text cells that begin with `=`, `+`, `-`, `@`, a tab or a carriage return are written with a leading `'` (spreadsheet formulas; see `escapeFormulas`). " +
    'Each query parameter is given once and not empty (else 400 INVALID_QUERY).',
  security: [{ bearerAuth: [] }],
  parameters: [
    ...pathParams,
    query('format', '`ndjson` (default) or `csv`', { type: 'string', enum: ['ndjson', 'csv'] }),
    query('fields', FIELDS_DESCRIPTION),
    query('sort', SORT_DESCRIPTION),
    query('filter', FILTER_DESCRIPTION),
    query('op', OP_DESCRIPTION, { type: 'string', enum: ['and', 'or'] }),
    query('locale', 'Localized columns as plain values in this locale (fallback: the default locale)'),
    query('search', SEARCH_DESCRIPTION),
    query(
      'escapeFormulas',
      "CSV: `true` (default) writes a text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return with a leading `'`, so that a spreadsheet shows it as text instead of running it as a formula (the `'` stays part of the value on a re-import); `false` writes every cell as it is stored, for a file to import again. `true` or `false` only (else 400 INVALID_QUERY)",
      { type: 'boolean', default: true },
    ),
  ],
  responses: {
    '200': {
      description: 'The rows, streamed (`Content-Disposition: attachment`)',
      content: {
        'application/x-ndjson': { schema: { type: 'string' }, example: '{"id":"0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a","status":"PUBLISHED","data":{"title":"Hello"}}\n' },
        'text/csv': { schema: { type: 'string' }, example: 'id,status,title\r\n0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a,PUBLISHED,Hello\r\n' },
      },
    },
  },
};
