import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../db/sql.js';
import { fileFieldsInside } from '../files/file.sql.js';
import { filtersClause, filtersMatch, Params, parseFilters, type Filter, type RowValues } from '../query/index.js';
import { hash, placeholders, type Caller } from './policy.js';
import { FILE_FIELDS, FILES, pseudoTable } from './role-rules.js';
import type { Rule } from './role.schema.js';

/*
 * A caller's `$files` rules compiled (docs/roles.md#files): per action, the rules that grant it,
 * each `where` as one SQL condition and its JavaScript twin. The `where` speaks of a file's
 * `name`, `mimeType` and `size` only (role-rules.ts checked it), so it is parsed by the list query
 * parser against a table of those three columns and compiled by the same operators: the SQL reads
 * them from `data`, a jsonb object of the file's fields (files/file.sql.ts builds it from a `file`
 * row or from an upload), and the JavaScript from the same fields of a file record.
 */

export const FILE_ACTIONS = ['read', 'create', 'update', 'delete'] as const;
export type FileAction = (typeof FILE_ACTIONS)[number];

/** What a `$files` rule's `where` reads of a file (a stored one, or an upload before it is stored). */
export interface FileFields {
  name: string;
  mimeType: string;
  size: number;
}

/** The files inside a `where` (or several, any of them). */
export interface FileScope {
  /** The condition on `data`, the file's fields as jsonb `{ name, mimeType, size }`; values inlined. */
  sql: string;
  /** The same in JavaScript: null when it cannot be told here (case folding outside ASCII): ask the database. */
  matches(file: FileFields): boolean | null;
  /** Identifies the condition. */
  key: string;
}

/** One `$files` rule of the caller, compiled. */
export interface FileRule {
  /** Its place in the caller's rules. */
  index: number;
  /** The files inside its `where`; null: every file. */
  where: FileScope | null;
}

export interface FilesPolicy {
  /** Per action, the caller's `$files` rules that grant it, in order. */
  grants: Record<FileAction, FileRule[]>;
  /** The files the caller lists and reads: any read rule's (null: every file; no read rule: none). */
  readable: FileScope | null;
}

/** No file: the library of a caller without a `$files` read rule. */
export const NO_FILES: FileScope = { sql: 'false', matches: () => false, key: 'none' };

/** A file's fields as the query evaluator reads a row. */
const asRow = (file: FileFields) => ({ data: { name: file.name, mimeType: file.mimeType, size: file.size } }) as unknown as RowValues;

function scopeOf(filters: Filter[]): FileScope {
  const sql = filtersClause(filters, 'and', new Params(true)) ?? 'true';
  return { sql, matches: (file) => filtersMatch({ filters, op: 'and' }, asRow(file)), key: hash(sql) };
}

/** Any of the scopes (null among them: every file; none: no file). */
function anyOf(scopes: (FileScope | null)[]): FileScope | null {
  if (scopes.length === 0) return NO_FILES;
  if (scopes.includes(null)) return null;
  const list = scopes as FileScope[];
  if (list.length === 1) return list[0];
  const sql = list.map((s) => `(${s.sql})`).join(' or ');
  const matches = (file: FileFields) => {
    const hits = list.map((s) => s.matches(file));
    return hits.includes(true) ? true : hits.includes(null) ? null : false;
  };
  return { sql, matches, key: hash(sql) };
}

/** Whether `file` is inside `scope`: told in JavaScript, or by the database where it cannot be. */
export async function fileInside(em: EntityManager, scope: FileScope, file: FileFields): Promise<boolean> {
  const verdict = scope.matches(file);
  if (verdict !== null) return verdict;
  const [row] = await runSql<{ c0: boolean }>(em, fileFieldsInside(file, [scope.sql]));
  return row?.c0 === true;
}

/** Compiles the `$files` rules among `rules` for `caller` at `now` (`$me` may stand for a name). */
export function compileFilesPolicy(rules: readonly Rule[], caller: Caller, now: Date): FilesPolicy {
  const table = pseudoTable('', FILES, FILE_FIELDS);
  const context = { locales: [], defaultLocale: '', placeholders: placeholders(caller, now) };
  const compiled = rules.flatMap((rule, index) => {
    if (rule.table !== FILES) return [];
    const where = rule.where && rule.where.length > 0 ? scopeOf(parseFilters(JSON.stringify(rule.where), table, context)) : null;
    return [{ index, rule, where }];
  });
  const grants = Object.fromEntries(
    FILE_ACTIONS.map((action) => [action, compiled.filter((c) => c.rule.actions.includes(action)).map(({ index, where }) => ({ index, where }))]),
  ) as FilesPolicy['grants'];
  return { grants, readable: anyOf(grants.read.map((r) => r.where)) };
}
