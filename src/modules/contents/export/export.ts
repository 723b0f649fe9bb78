import { sqlOn } from '../../../db/sql.js';
import { isLocalized } from '../../tables/table-def.js';
import type { ListContentsInput } from '../contents.schema.js';
import { referencedTables, type ListScope } from '../contents.list.js';
import { compileListQuery, MAX_PAGE_SIZE, pageOf, parseListQuery, toListItem, type ListQuery, type ListRow } from '../query/index.js';
import { exportStatements } from './export.sql.js';

/**
 * Rows read per statement: keyset pages of the list's own query, parsed at the list's largest
 * page size and then read five times as many at once (fewer round trips; still bounded).
 */
const PAGE = 5 * MAX_PAGE_SIZE;

export type ExportFormat = 'ndjson' | 'csv';
/** Text of whole rows (or the CSV header), and how many rows it holds. */
export interface ExportChunk {
  text: string;
  rows: number;
}
export type ExportInput = Pick<ListContentsInput, 'projectId' | 'tableId' | 'fields' | 'sort' | 'filter' | 'op' | 'locale' | 'search'>;

/** A CSV field: quoted when it holds a separator, a quote or a line break. */
const csvField = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
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

/**
 * SPEC §15 export: checks the parameters as the list does (400 before anything is sent), then
 * answers a stream of text chunks: every row the list with the same filter, search, sort,
 * fields and locale returns, in its order, page after page by keyset inside one read-only
 * snapshot (rows written meanwhile neither appear nor shift the pages). One page in memory at a
 * time.
 */
export async function prepareExport(scope: Omit<ListScope, 'cache' | 'em'>, input: ExportInput, format: ExportFormat): Promise<() => AsyncGenerator<ExportChunk>> {
  const related = await referencedTables(input as ListContentsInput, scope.table, scope.tables);
  const context = { ...scope.project, related, publicOnly: scope.publicOnly };
  const parse = (cursor?: string) => ({ ...parseListQuery({ ...input, size: MAX_PAGE_SIZE, withCount: false, cursor }, scope.table, context), size: PAGE });
  const first = parse();
  return async function* () {
    const client = await scope.pool.connect();
    const sql = sqlOn(client);
    let open = false;
    try {
      await sql(exportStatements.begin);
      open = true;
      const columns = format === 'csv' ? csvColumns(first, scope.project.locales) : null;
      if (columns) yield { text: `${columns.map((c) => csvField(c.header)).join(',')}\r\n`, rows: 0 };
      for (let query = first; ; ) {
        const rows = await sql<ListRow>(compileListQuery(query, { tableId: scope.table.id, publicOnly: scope.publicOnly }).select);
        const page = pageOf(query, rows);
        const items = page.rows.map((row) => toListItem(row, query));
        if (items.length === 0) break;
        const text = columns ? items.map((item) => `${columns.map((c) => csvField(c.cell(item))).join(',')}\r\n`).join('') : items.map((item) => `${JSON.stringify(item)}\n`).join('');
        yield { text, rows: items.length };
        if (!page.hasNext) break;
        query = parse(page.nextCursor!);
      }
      await sql(exportStatements.commit);
      open = false;
    } finally {
      // Also when the client left half-way (the generator is returned early): never hand a
      // connection back to the pool inside a transaction.
      if (open) await sql(exportStatements.rollback).catch(() => {});
      client.release();
    }
  };
}

