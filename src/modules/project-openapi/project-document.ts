import { createHash } from 'node:crypto';
import { addJsonExample, localResolver } from '../../openapi/examples.js';
import { pruneUnusedComponents } from '../../openapi/prune.js';
import { ERROR_SCHEMA, RESPONSE_HEADERS } from '../../openapi/responses.js';
import { CONTENT_STATUSES } from '../tables/table.entity.js';
import type { SchemaContext } from './column-schema.js';
import { tablePaths, tableSchemaNames, tableSchemas, type DocTable, type TableNames } from './table-paths.js';

export interface DocProject {
  id: string;
  name: string;
  locales: string[];
  defaultLocale: string;
}

/** `blog_posts` → `BlogPosts`. */
const pascal = (key: string) =>
  key
    .split('_')
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

/**
 * Component names per table. Keys are unique but their PascalCase forms can clash (`a_b` and
 * `a__b`, or `post` + `Data` against a table `post_data`): a clash takes a number suffix.
 */
function namesOf(tables: DocTable[]): Map<string, TableNames> {
  const taken = new Set(['Error', 'ContentStatus', 'ContentsPagination']);
  const names = new Map<string, TableNames>();
  for (const table of tables) {
    const base = pascal(table.key);
    let candidate = tableSchemaNames(base);
    for (let n = 2; Object.values(candidate).some((name) => taken.has(name)); n++) candidate = tableSchemaNames(`${base}${n}`);
    for (const name of Object.values(candidate)) taken.add(name);
    names.set(table.id, candidate);
  }
  return names;
}

const SHARED_SCHEMAS = {
  Error: ERROR_SCHEMA,
  ContentStatus: { type: 'string', enum: CONTENT_STATUSES, description: 'Only PUBLISHED rows are public (visible to read keys)' },
  ContentsPagination: {
    type: 'object',
    required: ['page', 'size', 'total', 'pages', 'hasNext', 'nextCursor'],
    additionalProperties: false,
    properties: {
      page: { type: 'integer', minimum: 1 },
      size: { type: 'integer', minimum: 1, maximum: 1000 },
      total: { type: ['integer', 'null'], description: 'Matching rows; null with withCount=false' },
      pages: { type: ['integer', 'null'], description: 'ceil(total / size); null with withCount=false' },
      hasNext: { type: 'boolean' },
      nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
  },
};

/**
 * The OpenAPI 3.1 document of one project's contents: for each live table, the list, create,
 * read, update and delete operations with `data` typed by the table's columns. Paths are
 * relative to the server `/v1/{projectId}`, so that a generated client addresses
 * `/tables/<key>/contents` with the project in its base URL.
 */
export function buildProjectDocument(project: DocProject, tables: DocTable[]): Record<string, unknown> {
  const names = namesOf(tables);
  const context: SchemaContext = {
    locales: project.locales,
    defaultLocale: project.defaultLocale,
    tableKeys: new Map(tables.map((t) => [t.id, t.key])),
    expandedRow: (tableId, partial) => {
      const target = names.get(tableId);
      return target && (partial ? target.listItem : target.row);
    },
  };
  const schemas: Record<string, unknown> = { ...SHARED_SCHEMAS };
  const paths: Record<string, unknown> = {};
  for (const table of tables) {
    const tableNames = names.get(table.id)!;
    Object.assign(schemas, tableSchemas(table, tableNames, context));
    Object.assign(paths, tablePaths(table, tableNames, context));
  }
  const doc = {
    openapi: '3.1.0',
    info: {
      title: `${project.name}: contents API`,
      // Changes whenever a table or column does, so that a client can tell it is out of date.
      version: createHash('sha256').update(JSON.stringify([project.locales, project.defaultLocale, tables])).digest('hex').slice(0, 12),
      description:
        `The contents of the Tabula project ${project.name} (\`${project.id}\`), typed by its tables’ columns. ` +
        `Locales: ${project.locales.join(', ')} (default ${project.defaultLocale}). ` +
        'Authenticate with an API key of this project (`tak_…`) or an account token. The rest of the API is described at `/v1/openapi.json`.',
    },
    servers: [{ url: `/v1/${project.id}`, description: `Project ${project.name}` }],
    security: [{ bearerAuth: [] }],
    tags: tables.map((t) => ({ name: t.key, description: `${t.name}${t.description ? `: ${t.description}` : ''}` })),
    paths,
    components: {
      schemas,
      headers: { ...RESPONSE_HEADERS },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (`tak_…`) of this project or an account token (`tat_…`)' } },
    },
  };
  addExamples(doc);
  pruneUnusedComponents(doc);
  return doc;
}

type Operation = { requestBody?: { content?: Record<string, { schema?: unknown }> }; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

function addExamples(doc: { paths: Record<string, unknown> }): void {
  const resolve = localResolver(doc);
  for (const item of Object.values(doc.paths) as Record<string, Operation>[]) {
    for (const op of Object.values(item)) {
      if (Array.isArray(op)) continue; // path-level parameters
      addJsonExample(op.requestBody?.content, resolve);
      for (const [status, response] of Object.entries(op.responses ?? {})) if (status.startsWith('2')) addJsonExample(response.content, resolve);
    }
  }
}
