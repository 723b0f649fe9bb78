import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { isLocalized } from '../../tables/table-def.js';
import type { ListContentsInput } from '../rows/rows.schema.js';
import { referencedTables, type ListScope } from '../rows/list.js';
import { compileListQuery, MAX_PAGE_SIZE, parseListQuery, toListItem, type ListQuery, type ListRow } from '../../query/index.js';
import { copyExport, declareExport, exportStatements, fetchExport, ndjsonLine } from './export.sql.js';

export type ExportFormat = 'ndjson' | 'csv';
/** Bytes or text of the export (a COPY's chunk may end inside a row), and how many rows end in it. */
export interface ExportChunk {
  data: string | Buffer;
  rows: number;
}
export type ExportInput = Pick<ListContentsInput, 'projectId' | 'tableId' | 'fields' | 'sort' | 'filter' | 'op' | 'locale' | 'search'>;

export interface ExportOptions {
  format: ExportFormat;
  /** CSV: text cells that a spreadsheet would run as a formula get a leading `'` (docs/import-export.md). */
  escapeFormulas: boolean;
}

/**
 * A text that a spreadsheet reads as a formula (`=`, `+`, `-`, `@`) or that hides one behind a tab
 * or a carriage return (OWASP "CSV injection"). Only text is escaped: a number such as -5 is no
 * formula, and stays importable as a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A CSV field: quoted when it holds a separator, a quote or a line break. */
const csvField = (value: unknown, escapeFormulas = false): string => {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (escapeFormulas && typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** The CSV columns of a query: id, the system fields asked for, then each column (a localized one once per locale without `locale`). */
function csvColumns(query: ListQuery, locales: string[]): { header: string; cell: (item: Record<string, unknown>) => unknown }[] {
  const data = (item: Record<string, unknown>) => (item.data ?? {}) as Record<string, unknown>;
  return [
    { header: 'id', cell: (item) => item.id },
    ...query.projection.system.filter((f) => f !== 'hasDraft').map((field) => ({ header: field, cell: (item: Record<string, unknown>) => item[field] })),
    ...query.projection.columns.flatMap((column) =>
      isLocalized(column) && !query.locale
        ? locales.map((locale) => ({ header: `${column.name}.${locale}`, cell: (item: Record<string, unknown>) => (data(item)[column.name] as Record<string, unknown> | undefined)?.[locale] }))
        : [{ header: column.name, cell: (item: Record<string, unknown>) => data(item)[column.name] }],
    ),
  ];
}

/** Rows per FETCH: about 350 KB of NDJSON for rows of a few columns; one batch in memory at a time. */
const FETCH_ROWS = 1000;
/**
 * Characters per chunk written. Strings past V8's largest regular object (128 KB) are allocated
 * in the large-object space, which only a full collection frees: 350 KB chunks, one per FETCH,
 * grew the API's RSS by 234 MB over a million rows. Chunks under it die young.
 */
const CHUNK_CHARS = 32 * 1024;

/** Lines joined into chunks of about CHUNK_CHARS (a longer line is a chunk of its own). */
function* chunksOf(lines: string[]): Generator<ExportChunk> {
  let parts: string[] = [];
  let size = 0;
  for (const line of lines) {
    parts.push(line);
    size += line.length;
    if (size >= CHUNK_CHARS) {
      yield { data: parts.join(''), rows: parts.length };
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield { data: parts.join(''), rows: parts.length };
}

/**
 * Export (docs/import-export.md#export): checks the parameters as the list does (400 before anything is sent), then
 * answers a stream of chunks: every row the list with the same filter, search, sort, fields and
 * locale returns, in its order, as one snapshot (rows written meanwhile neither appear nor move
 * others). NDJSON lines are built by PostgreSQL (ndjsonLine) and streamed by one COPY; CSV rows
 * are formatted here from the list's own rows, read through a cursor. Memory stays constant:
 * the COPY is read only as fast as the chunks are taken, and the cursor holds one FETCH.
 */
export async function prepareExport(scope: Omit<ListScope, 'cache' | 'em'>, input: ExportInput, { format, escapeFormulas }: ExportOptions): Promise<() => AsyncGenerator<ExportChunk>> {
  const related = await referencedTables(input as ListContentsInput, scope.table, scope.tables);
  const context = { ...scope.project, related, hideDrafts: !scope.drafts };
  const query = parseListQuery({ ...input, size: MAX_PAGE_SIZE, withCount: false }, scope.table, context);
  const listScope = { tableId: scope.table.id, rows: scope.table.rows };
  if (format === 'ndjson') {
    const { select } = compileListQuery(query, listScope, { unbounded: true, inlineValues: true, columns: `${ndjsonLine(query)} as line` });
    return () => copyLines(scope.pool, copyExport(select));
  }
  const columns = csvColumns(query, scope.project.locales);
  const { select } = compileListQuery(query, listScope, { unbounded: true });
  return async function* () {
    const client = await scope.pool.connect();
    let open = false;
    try {
      await client.query(exportStatements.begin);
      open = true;
      await client.query(declareExport(select));
      yield { data: `${columns.map((c) => csvField(c.header)).join(',')}\r\n`, rows: 0 };
      for (;;) {
        const rows = (await client.query<ListRow>(fetchExport(FETCH_ROWS))).rows;
        yield* chunksOf(rows.map((row) => {
          const item = toListItem(row, query);
          return `${columns.map((c) => csvField(c.cell(item), escapeFormulas)).join(',')}\r\n`;
        }));
        if (rows.length < FETCH_ROWS) break;
      }
      await client.query(exportStatements.commit);
      open = false;
    } finally {
      // Also when the client left half-way (the generator is returned early): never hand a
      // connection back to the pool inside a transaction.
      if (open) await client.query(exportStatements.rollback).catch(() => {});
      client.release();
    }
  };
}

/** The output of a `copy ... to stdout` of lines, as it arrives (a chunk may end inside a line; `rows` counts the lines it ends). */
async function* copyLines(pool: pg.Pool, copy: string): AsyncGenerator<ExportChunk> {
  const client = await pool.connect();
  let finished = false;
  try {
    for await (const data of client.query(copyTo(copy)) as AsyncIterable<Buffer>) yield { data, rows: newlines(data) };
    finished = true;
  } finally {
    // A COPY left half-way (the caller went away, or it failed) cannot be taken up again by
    // the next user of the connection: the connection is closed instead of returned.
    client.release(finished ? undefined : true);
  }
}

const newlines = (data: Buffer): number => {
  let count = 0;
  for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) count++;
  return count;
};
