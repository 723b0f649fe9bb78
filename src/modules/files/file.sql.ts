import type { SqlQuery } from '../../db/sql.js';
import { sqlLiteral } from '../../db/sql-literal.js';

/** Rows of live tables whose live `file` columns hold `fileId` (alone or in a `multiple` array). */
export const fileReferenceCount = (projectId: string, fileId: string): SqlQuery => ({
  text: `select count(distinct r.id)::int as n
           from content_table t
           join content_column c on c.table_id = t.id and c.type = 'file' and c.deleted_at is null
           join contents r on r.table_id = t.id
          where t.project_id = $1 and t.deleted_at is null
            and (r.data -> c.name = to_jsonb($2::text) or r.data -> c.name @> jsonb_build_array($2::text))`,
  values: [projectId, fileId],
});

/*
 * The file library as a custom role sees it (docs/roles.md#files). A `$files` rule's `where` is
 * compiled (roles/files-policy.ts) into a condition on `data`, a jsonb object of the file's
 * fields; these statements give it that object, from a `file` row or from an upload.
 */

/** The fields a `$files` rule reads, of the `file` row aliased `f`. */
const FIELDS_OF_ROW = `jsonb_build_object('name', f.name, 'mimeType', f.mime_type, 'size', f.size)`;

/** The list's own `mimeType` filter: one type, or a family as a LIKE prefix (escaped). */
export type MimeTypeFilter = { equals: string } | { like: string } | null;

/** The list's own filters: `mime`, and `name` (an escaped ILIKE pattern) from its `search`. */
export interface FileListFilter {
  mime: MimeTypeFilter;
  name: string | null;
}

function scopedWhere(projectId: string, { mime: mimeType, name }: FileListFilter, scope: string): SqlQuery {
  const values: unknown[] = [projectId];
  let mime = '';
  if (mimeType) {
    values.push('equals' in mimeType ? mimeType.equals : mimeType.like);
    mime = 'equals' in mimeType ? ` and f.mime_type = $${values.length}` : ` and f.mime_type like $${values.length}`;
  }
  if (name !== null) {
    values.push(name);
    mime += ` and f.name ilike $${values.length}`;
  }
  return {
    text: `from file f cross join lateral (select ${FIELDS_OF_ROW} as data) as fields
          where f.project_id = $1${mime} and (${scope})`,
    values,
  };
}

/** A page of the project's files inside `scope` (a condition on `data`), oldest first (or newest). */
export const scopedFilePage = (projectId: string, filter: FileListFilter, scope: string, offset: number, limit: number, newest = false): SqlQuery => {
  const where = scopedWhere(projectId, filter, scope);
  const n = where.values.length;
  const order = newest ? 'desc' : 'asc';
  return {
    text: `select f.* ${where.text} order by f.created_at ${order}, f.id ${order} offset $${n + 1} limit $${n + 2}`,
    values: [...where.values, offset, limit],
  };
};

/** How many of the project's files are inside `scope`. */
export const scopedFileCount = (projectId: string, filter: FileListFilter, scope: string): SqlQuery => {
  const where = scopedWhere(projectId, filter, scope);
  return { text: `select count(*)::int as n ${where.text}`, values: where.values };
};

/** Whether a file with these fields (stored, or an upload) is inside each of `conditions`: `c0`, `c1`, …. */
export const fileFieldsInside = (file: { name: string; mimeType: string; size: number }, conditions: string[]): SqlQuery => ({
  text: `select ${conditions.map((c, i) => `coalesce((${c}), false) as c${i}`).join(', ')}
           from (select jsonb_build_object('name', $1::text, 'mimeType', $2::text, 'size', $3::bigint) as data) as fields`,
  values: [file.name, file.mimeType, file.size],
});

/** Where a caller reads file references: a table, its readable file columns, its readable rows. */
export interface FileReferenceSource {
  tableId: string;
  /** Column names (safe in literals: ^[A-Za-z][A-Za-z0-9_]*$) and ids (a pending draft keys values by id). */
  columns: { name: string; id: string; multiple: boolean }[];
  /** The readable rows: an SQL condition on an unqualified `contents` row (null: every row). */
  rows: string | null;
  /** Whether pending drafts are read too. */
  drafts: boolean;
}

/** Per source, the condition of its rows holding `fileId` (the query's `$1`). */
function rowsHolding(sources: FileReferenceSource[]): string[] {
  const holds = (value: string, single: boolean) =>
    single ? `(${value}) = to_jsonb($1::text)` : `(${value}) @> jsonb_build_array($1::text)`;
  return sources.map(({ tableId, columns, rows, drafts }) => {
    const held = columns.flatMap(({ name, id, multiple }) => [
      // The same expressions as the columns' indexes (query/expressions.ts), so that they serve.
      multiple ? holds(`data->${sqlLiteral(name)}`, false) : `(data->>${sqlLiteral(name)}) = $1::text`,
      ...(drafts ? [holds(`draft->${sqlLiteral(id)}`, true), holds(`draft->${sqlLiteral(id)}`, false)] : []),
    ]);
    return `(table_id = ${sqlLiteral(tableId)}::uuid${rows ? ` and (${rows})` : ''} and (${held.join(' or ')}))`;
  });
}

/** Whether `fileId` is held by a readable file column of a readable row of one of `sources`. */
export const fileReferencedByRows = (fileId: string, sources: FileReferenceSource[]): SqlQuery => {
  const perTable = rowsHolding(sources);
  return {
    text: `select exists (select 1 from contents where ${perTable.length > 0 ? perTable.join(' or ') : 'false'}) as referenced`,
    values: [fileId],
  };
};

/** The project's live tables with a live `file` column. */
export const tablesWithFileColumns = (projectId: string): SqlQuery => ({
  text: `select distinct t.id
           from content_table t
           join content_column c on c.table_id = t.id and c.type = 'file' and c.deleted_at is null
          where t.project_id = $1 and t.deleted_at is null`,
  values: [projectId],
});

/*
 * Bytes shared between a file and its copies (docs/concepts.md#copying-a-project): a delete or
 * replace removes them only when no other file row holds them. The check runs under a lock per
 * blob, after the row let go of them, so that of two files letting go at once the second sees
 * the first gone (and removes the bytes) instead of both seeing the other and keeping them.
 */

/** Waits for the other transactions letting go of these bytes; held until this one ends. */
export const lockBytes = (driver: string, key: string): SqlQuery => ({
  text: 'select pg_advisory_xact_lock(hashtextextended($1, 0))',
  values: [`file-bytes:${driver}:${key}`],
});

/** Whether a file row (of any project) holds these bytes. */
export const bytesHeld = (driver: string, key: string): SqlQuery => ({
  text: 'select exists (select 1 from file where storage_key = $2 and storage_driver = $1) as held',
  values: [driver, key],
});

/** The readable rows of `sources` holding `fileId` (its "used by"), newest first, at most `limit`. */
export const fileReferrerRows = (fileId: string, sources: FileReferenceSource[], limit: number): SqlQuery => ({
  text: `select table_id as "tableId", id, slug, status from contents
          where ${sources.length > 0 ? rowsHolding(sources).join(' or ') : 'false'}
          order by updated_at desc, id desc limit $2`,
  values: [fileId, limit],
});
