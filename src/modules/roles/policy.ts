import { createHash } from 'node:crypto';
import { AppError } from '../../errors/app-error.js';
import { filtersClause, filtersMatch, Params, parseFilters, type Filter, type RowValues, type Scalar, type ValueKind } from '../query/index.js';
import { PUBLISHED_ONLY, type ColumnDef, type RowScope, type TableDef } from '../tables/table-def.js';
import { CONTENT_STATUSES, type ContentStatus } from '../tables/table.entity.js';
import { ALL_TABLES, FILES, reachableTables } from './role-rules.js';
import { RULE_ACTIONS, type Rule, type RuleAction } from './role.schema.js';

/*
 * A caller's rules compiled for one table (docs/roles.md#one-enforcement-path): the view every
 * read goes through (the readable columns, and the rows as one SQL condition and its JavaScript
 * twin), and per action the rules that grant it, each with its `where` compiled the same way.
 * Compiled once per caller, table schema and second (`$now`), and cached: a request pays a map
 * look-up.
 */

/** Who the rules are compiled for: `$me`, and the statuses a rule without `statuses` reads. */
export interface Caller {
  /** The account id or the API key id (`$me`). */
  me: string;
  kind: 'account' | 'apiKey';
}

/** One rule of the caller on this table, compiled. */
export interface CompiledRule {
  /** Its place in the caller's rules (explain answers it). */
  index: number;
  rule: Rule;
  /** The rows inside its `where` (null: every row), for writes. */
  where: RowScope | null;
  /** The columns it writes (`title` or `title.fr`); null: every column. */
  write: string[] | null;
}

export interface TablePolicy {
  /** The table as the caller reads it: its readable columns and, in `rows`, its readable rows. */
  view: TableDef;
  /** Per action, the caller's rules on this table that grant it, in order. */
  grants: Record<RuleAction, CompiledRule[]>;
  /** Whether the caller reads pending drafts, `hasDraft` and revisions of the rows it reads. */
  drafts: boolean;
  /** Whether the caller's updates of PUBLISHED rows become drafts. */
  writeAsDraft: boolean;
}

/** A `where` that no longer parses against the schema. */
const BROKEN = Symbol('broken');

/** Nothing: the rows of a table the caller has no read rule for. */
export const NO_ROWS: RowScope = { sql: 'false', matches: () => false, key: 'none' };

export const hash = (text: string) => createHash('sha1').update(text).digest('base64url').slice(0, 16);

/** `$me` and `$now` as values of the field they are compared with (role-rules.ts checked they fit). */
export function placeholders(caller: Caller, now: Date): ReadonlyMap<string, (kind: ValueKind) => Scalar | null> {
  const iso = now.toISOString();
  return new Map<string, (kind: ValueKind) => Scalar | null>([
    ['$me', () => caller.me],
    ['$now', (kind) => (kind === 'date' ? iso.slice(0, 10) : iso)],
  ]);
}

/** One rule's `where` (all items must match) as a RowScope over the table's full rows. */
function whereScope(filters: Filter[]): RowScope {
  const sql = filtersClause(filters, 'and', new Params(true)) ?? 'true';
  const timestamps = filters.some((f) => f.field.source === 'system' && TIMESTAMPS.has(f.field.name));
  return { sql, matches: (row) => filtersMatch({ filters, op: 'and' }, row as RowValues), key: hash(sql), timestamps };
}

const TIMESTAMPS = new Set(['createdAt', 'updatedAt', 'publishedAt', 'publishAt']);

/** Statuses (none: no condition) and a where (null: none) combined. */
function both(statuses: readonly ContentStatus[] | null, where: RowScope | null): RowScope | null {
  if (!statuses) return where;
  if (statuses.length === 1 && statuses[0] === 'PUBLISHED' && !where) return PUBLISHED_ONLY;
  const inList = statuses.map((s) => `'${s}'`).join(', ');
  const status = { sql: `status in (${inList})`, matches: (row: { status: string }) => statuses.includes(row.status as ContentStatus) };
  if (!where) return { ...status, key: hash(status.sql) };
  const sql = `${status.sql} and ${where.sql}`;
  return { sql, matches: (row) => (status.matches(row) ? where.matches(row) : false), key: hash(sql), timestamps: where.timestamps };
}

/** Any of the scopes (null among them: every row). */
function anyOf(scopes: (RowScope | null)[]): RowScope | undefined {
  if (scopes.length === 0) return NO_ROWS;
  if (scopes.includes(null)) return undefined;
  const list = scopes as RowScope[];
  if (list.length === 1) return list[0];
  const sql = list.map((s) => `(${s.sql})`).join(' or ');
  return {
    sql,
    matches: (row) => {
      let unknown = false;
      for (const scope of list) {
        const hit = scope.matches(row);
        if (hit === true) return true;
        if (hit === null) unknown = true;
      }
      return unknown ? null : false;
    },
    key: hash(sql),
    timestamps: list.some((s) => s.timestamps),
  };
}

/** The columns named by a rule's field list (`title.fr` names `title`); null: every column. */
const columnNames = (names: string[] | undefined) => (names ? names.map((n) => n.split('.')[0]) : null);

/** The view: the columns of `names` (null: all) and the rows. Unchanged columns keep the table's schema key. */
function viewOf(table: TableDef, names: Set<string> | null, rows: RowScope | undefined): TableDef {
  const columns: ColumnDef[] = names ? table.columns.filter((c) => names.has(c.name)) : table.columns;
  if (columns.length === table.columns.length && !rows) return table;
  const hidden = table.columns.filter((c) => !columns.includes(c)).map((c) => c.name);
  return {
    ...table,
    columns,
    // Values of columns the caller may not read are dropped like those of deleted columns.
    hiddenKeys: [...table.hiddenKeys, ...hidden],
    schemaKey: hidden.length === 0 ? table.schemaKey : `${table.schemaKey}/${hash(columns.map((c) => c.id).join(','))}`,
    ...(rows ? { rows } : {}),
  };
}

/** Context of a compilation: the project's locales and its tables (dotted `where` paths). */
export interface PolicyContext {
  locales: string[];
  defaultLocale: string;
  tables: (idOrKey: string) => Promise<TableDef | null>;
}

/** Compiles `rules` (a role's, or a built-in's) for `table` and `caller` at `now`. */
export async function compileTablePolicy(rules: readonly Rule[], table: TableDef, caller: Caller, now: Date, ctx: PolicyContext): Promise<TablePolicy> {
  const mine = rules.map((rule, index) => ({ rule, index })).filter(({ rule }) => rule.table === table.key || rule.table === ALL_TABLES);
  const parse = async (rule: Rule): Promise<RowScope | null | typeof BROKEN> => {
    if (!rule.where || rule.where.length === 0) return null;
    const dotted = rule.where.some((item) => typeof item.i === 'string' && item.i.includes('.'));
    const related = dotted ? await reachableTables(table, ctx.tables) : undefined;
    try {
      return whereScope(parseFilters(JSON.stringify(rule.where), table, { ...ctx, related, placeholders: placeholders(caller, now) }));
    } catch (error) {
      // A `where` naming a column (or table) deleted since the rule was written: the rule grants nothing.
      if (error instanceof AppError && error.errorCode === 'INVALID_QUERY') return BROKEN;
      throw error;
    }
  };
  const parsed = await Promise.all(mine.map(async ({ rule, index }) => ({ index, rule, where: await parse(rule), write: rule.fields?.write ?? null })));
  const compiled = parsed.filter((c): c is CompiledRule => c.where !== BROKEN);
  const grants = Object.fromEntries(RULE_ACTIONS.map((action) => [action, compiled.filter((c) => c.rule.actions.includes(action))])) as TablePolicy['grants'];
  const readers = grants.read;
  const defaultStatuses: readonly ContentStatus[] | null = caller.kind === 'apiKey' ? ['PUBLISHED'] : null;
  const rows = anyOf(
    readers.map(({ rule, where }) => {
      const statuses = rule.statuses ?? defaultStatuses;
      return both(statuses && CONTENT_STATUSES.every((s) => statuses.includes(s)) ? null : statuses, where);
    }),
  );
  // Readable columns: those of any read rule; without one, those the caller writes (a write's answer shows them).
  const sources = readers.length > 0 ? readers.map((c) => columnNames(c.rule.fields?.read)) : compiled.map((c) => columnNames(c.write ?? undefined));
  const names = sources.length === 0 || sources.includes(null) ? null : new Set(sources.flatMap((n) => n!));
  return {
    view: viewOf(table, names, rows),
    grants,
    drafts: readers.some((c) => c.rule.drafts === true),
    writeAsDraft: compiled.some((c) => c.rule.writeAsDraft === true && c.rule.actions.includes('update')),
  };
}

/** Whether a rule set mentions `$now` (its compilation then holds for the second it was made in). */
export const usesNow = (rules: readonly Rule[]) => JSON.stringify(rules.map((r) => r.where ?? [])).includes('"$now"');

/** The table keys rules name, or undefined when one names every table (`*`): what a tables list shows. */
export function tablesNamed(rules: readonly Rule[]): string[] | undefined {
  if (rules.some((r) => r.table === ALL_TABLES)) return undefined;
  return [...new Set(rules.map((r) => r.table).filter((t) => t !== FILES))];
}
