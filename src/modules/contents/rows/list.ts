import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { expandItems, type ExpandContext } from '../expand/expand.js';
import { parseExpand, type TableLoader } from '../expand/parse-expand.js';
import type { ProjectInfo } from '../../projects/project-directory.js';
import { sqlOn, type SqlQuery } from '../../../db/sql.js';
import type { TableDef } from '../../tables/table-def.js';
import { isLocalized, PUBLISHED_ONLY } from '../../tables/table-def.js';
import { parseSnapshot, wireInstant, type RowImage } from '../list-cache/change-log.js';
import type { ListCache, Lookup, PagePatch, PageResult } from '../list-cache/list-cache.js';
import { positionOf, rowsWithCreated } from '../list-cache/page-patch.js';
import type { ContentsListItem, ListContentsInput } from './rows.schema.js';
import { encodedArray, withEncodedField } from '../../../shared/encoded-json.js';
import { compileListQuery, MAX_HOPS, pageOf, parseListQuery, sortKeysOf, toListItem, type ListQuery, type ListRow } from '../../query/index.js';

export interface ListScope {
  /** Lists read through the plain pool: no unit of work is needed, and it is the hottest path. */
  pool: pg.Pool;
  cache: ListCache;
  table: TableDef;
  project: ProjectInfo;
  /** Whether the caller may see drafts and `hasDraft` (docs/contents.md#drafts-of-published-rows). */
  drafts: boolean;
  /** For `expand`: the project's tables, and the entity manager that reads files. */
  tables: TableLoader;
  /** For `expand`: whether the caller reads the drafts of another table (absent: as `drafts` says). */
  readsDrafts?: (tableId: string) => Promise<boolean>;
  em: EntityManager;
}

/** How a read of this scope expands references and files (expand/expand.ts). */
export const expandContext = (scope: Omit<ListScope, 'table'>, locale: string | null): ExpandContext => ({
  sql: sqlOn(scope.pool),
  em: scope.em,
  rows: scope.cache.rows,
  sync: (tableId) => scope.cache.syncTable(scope.pool, tableId),
  projectId: scope.project.id,
  drafts: scope.drafts,
  readsDrafts: scope.readsDrafts,
  locale,
  defaultLocale: scope.project.defaultLocale,
});

/**
 * A list (docs/contents.md#list-queries): one parameterised select for the page (size + 1 rows tell `hasNext`) and an exact
 * total — from the maintained counters when nothing is filtered, else counted. Both are cached
 * and kept up to date with the changes committed since (list-cache/); the table's changes are
 * read first, so a result is never older than the request.
 */
export async function listContents(scope: ListScope, input: ListContentsInput) {
  const expand = await parseExpand(input.expand, input.fields, scope.table, scope.tables);
  const related = await referencedTables(input, scope.table, scope.tables);
  const context = { ...scope.project, related, hideDrafts: !scope.drafts };
  const query = parseListQuery(expand ? { ...input, fields: expand.fields } : input, scope.table, context);
  const { rows } = scope.table;
  const compiled = compileListQuery(query, { tableId: scope.table.id, rows });
  // The tables a dotted filter or sort reads: synced too, so that their changes reach the cache.
  const readsFrom = relatedTableIds(query);
  const [synced, ...relatedSyncs] = await Promise.all([scope.table.id, ...readsFrom].map((id) => scope.cache.syncTable(scope.pool, id)));
  // The default locale shapes `locale` reads: part of the key, as the schema is.
  const lookup = (statement: SqlQuery, shaped = ''): Lookup => ({
    tableId: scope.table.id,
    query: statement,
    variant: `${scope.table.schemaKey}:${scope.project.defaultLocale}${shaped}`,
    shape: { query, rows },
    seq: synced.seq,
    related: readsFrom.map((tableId, i) => ({ tableId, seq: relatedSyncs[i].seq })),
  });
  const [page, total] = await Promise.all([
    // A page holds its items shaped with the system fields asked for, which the statement (it
    // selects them all) does not tell apart: `fields=title` and `fields=title,status` differ here.
    scope.cache.page(lookup(compiled.select, `:${query.projection.system.join(',')}`), () => loadPage(scope.pool, query, compiled.select), patchFor(query)),
    !query.withCount
      ? null
      : query.filters.length === 0 && !query.search && (!rows || rows === PUBLISHED_ONLY)
        ? rows
          ? synced.publishedTotal
          : synced.total
        : scope.cache.count(lookup(compiled.count!), () => loadCount(scope.pool, compiled.count!)),
  ]);
  const pagination = {
    page: query.page,
    size: query.size,
    total,
    pages: total === null ? null : Math.ceil(total / query.size),
    hasNext: page.hasNext,
    nextCursor: page.nextCursor,
  };
  if (expand) return { list: await expandItems(page.list, expand.nodes, expandContext(scope, query.locale)), pagination };
  // The cached page's items are encoded once, for every later answer of it (shared/encoded-json.ts).
  return withEncodedField({ list: page.list, pagination }, 'list', () => encodedArray(page.list));
}

/**
 * The tables reference columns lead to from `table`, up to the depth of a dotted path, when the
 * filter or sort may name one (a dot in it); none otherwise, at no cost.
 */
export async function referencedTables(input: ListContentsInput, table: TableDef, load: TableLoader): Promise<Map<string, TableDef>> {
  const tables = new Map<string, TableDef>();
  if (!input.filter?.includes('.') && !input.sort?.includes('.')) return tables;
  let level = [table];
  for (let depth = 0; depth < MAX_HOPS && level.length > 0; depth++) {
    const next: TableDef[] = [];
    for (const column of level.flatMap((t) => t.columns).filter((c) => c.type === 'reference')) {
      const id = column.settings.table!;
      if (tables.has(id)) continue;
      const found = await load(id);
      if (found) {
        tables.set(id, found);
        next.push(found);
      }
    }
    level = next;
  }
  return tables;
}

/** The other tables the compiled statement reads through dotted filters and sorts. */
function relatedTableIds(query: ListQuery): string[] {
  const fields = [...query.filters.map((f) => f.field), ...query.sort.map((k) => k.field)];
  return [...new Set(fields.flatMap((f) => (f.source === 'related' ? f.via.map((hop) => hop.table.id) : [])))];
}

async function loadPage(pool: pg.Pool, query: ListQuery, select: SqlQuery): Promise<PageResult<ContentsListItem>> {
  return pageFromRows(query, await sqlOn(pool)<ListRow>(select));
}

/**
 * A page from the select's rows (up to `size + 1`: the last one only tells `hasNext`). `patched`:
 * the page these rows were made from by adding one created row; its other rows keep their items.
 */
function pageFromRows(query: ListQuery, rows: ListRow[], patched?: { before: PageResult<ContentsListItem>; created: ListRow }): PageResult<ContentsListItem> {
  const page = pageOf(query, rows);
  const last = page.rows.at(-1);
  return {
    // toListItem builds exactly the wire shape of contentsListItem.
    list: patched ? listWithCreated(query, page.rows, patched.before.list, patched.created) : page.rows.map((row) => toListItem(row, query) as ContentsListItem),
    hasNext: page.hasNext,
    nextCursor: page.nextCursor,
    bounds: { last: last ? positionOf(query.sort, last) : null, next: page.hasNext ? positionOf(query.sort, rows[query.size]) : null },
    rows,
  };
}

/**
 * The items of a cached page after a create: the page's own items with the created row's item
 * put in its place. Building every item again cost a cached page of 1,000 rows 1,000 items per
 * create (seconds of the event loop after a burst of writes, docs/performance.md#lists-under-writes).
 */
function listWithCreated(query: ListQuery, shown: ListRow[], before: ContentsListItem[], created: ListRow): ContentsListItem[] {
  const at = shown.indexOf(created);
  // Not shown (it only makes `hasNext` true, or the page already held it): the same items.
  if (at < 0) return before;
  return [...before.slice(0, at), toListItem(created, query) as ContentsListItem, ...before.slice(at, shown.length - 1)];
}

/**
 * How a first page takes a created row (list-cache/page-patch.ts). Not for later pages or cursor pages, nor
 * when localized values are read in a locale: those rows are built by SQL this does not mirror.
 */
function patchFor(query: ListQuery): PagePatch<ContentsListItem> | undefined {
  if (query.page !== 1 || query.cursor || (query.locale && query.projection.columns.some(isLocalized))) return undefined;
  return (page, image, textOrder) => {
    const created = listRowOf(query, image);
    const rows = created && rowsWithCreated(query.sort, page.rows as ListRow[], query.size, created, image, textOrder);
    return rows ? pageFromRows(query, rows, { before: page, created: created! }) : null;
  };
}


/** The row the compiled select would return for `image`, or null when it cannot be built here. */
function listRowOf(query: ListQuery, image: RowImage): ListRow | null {
  const keys = sortKeysOf(query.sort, image);
  const [createdAt, updatedAt, publishedAt, publishAt] = [image.createdAt, image.updatedAt, image.publishedAt, image.publishAt].map(wireInstant);
  if (!keys || createdAt == null || updatedAt == null || publishedAt === undefined || publishAt === undefined || image.version === undefined) return null;
  const row: ListRow = { id: image.id, status: image.status, slug: image.slug, createdAt, updatedAt, publishedAt, publishAt, version: image.version, data: image.data };
  if (query.projection.system.includes('hasDraft')) row.hasDraft = image.hasDraft ?? false;
  keys.forEach((key, i) => (row[`_k${i}`] = key));
  return row;
}

async function loadCount(pool: pg.Pool, count: SqlQuery) {
  const [row] = await sqlOn(pool)<{ total: number; snapshot: string }>(count);
  return { total: Number(row.total), snapshot: parseSnapshot(row.snapshot) };
}
