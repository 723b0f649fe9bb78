import { AppError, validationError, type ErrorDetail } from '../../errors/app-error.js';
import { MAX_HOPS, parseFilters, type ParseContext, type Scalar, type ValueKind } from '../query/index.js';
import { isLocalized, type ColumnDef, type TableDef } from '../tables/table-def.js';
import { MAX_RULES, type Rule } from './role.schema.js';

/**
 * What a role's rules mean against the project (docs/roles.md#rules), checked on create and
 * update: every violation is one 422 detail whose `field` is its path in the body
 * (`rules.0.where`, `rules.1.fields.write.2`), all of them at once.
 */

/** `table` of a rule over every table. */
export const ALL_TABLES = '*';
/** `table` of a rule over the file library. */
export const FILES = '$files';

/** What validating rules needs of the project. */
export interface RuleContext {
  projectId: string;
  locales: string[];
  defaultLocale: string;
  /** The project's tables by id or key (null when unknown). */
  tables: (idOrKey: string) => Promise<TableDef | null>;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * `"$me"` (the caller's account or API key id) and `"$now"` are known only per request. Here they
 * take a value of their kind, so that the query parser checks the filter around them: `$me` fits
 * text and id fields, `$now` date and time fields; elsewhere the parser refuses them.
 */
const STAND_INS = new Map<string, (kind: ValueKind) => Scalar | null>([
  ['$me', (kind) => (kind === 'text' ? '$me' : kind === 'uuid' ? NIL_UUID : null)],
  ['$now', (kind) => (kind === 'date' ? '2000-01-01' : kind === 'datetime' || kind === 'timestamp' ? '2000-01-01T00:00:00Z' : null)],
]);

export const pseudoTable = (projectId: string, key: string, columns: ColumnDef[]): TableDef => ({
  id: key,
  projectId,
  key,
  defaultStatus: 'PUBLISHED',
  columns,
  hiddenKeys: [],
  schemaKey: key,
});

/** The fields a `$files` rule's `where` may use, as the columns the parser checks them against. */
export const FILE_FIELDS: ColumnDef[] = [
  { id: 'name', name: 'name', type: 'text', settings: {} },
  { id: 'mimeType', name: 'mimeType', type: 'text', settings: {} },
  { id: 'size', name: 'size', type: 'integer', settings: {} },
];

/** The tables reference columns lead to from `table`, as deep as a dotted path goes. */
export async function reachableTables(table: TableDef, load: RuleContext['tables']): Promise<Map<string, TableDef>> {
  const found = new Map<string, TableDef>();
  let level = [table];
  for (let depth = 0; depth < MAX_HOPS && level.length > 0; depth++) {
    const next: TableDef[] = [];
    for (const column of level.flatMap((t) => t.columns).filter((c) => c.type === 'reference')) {
      const id = column.settings.table!;
      if (found.has(id)) continue;
      const referenced = await load(id);
      if (referenced) {
        found.set(id, referenced);
        next.push(referenced);
      }
    }
    level = next;
  }
  return found;
}

/** The path of each repeated entry of `values` (the second and later occurrences). */
function duplicates(path: string, values: readonly string[]): ErrorDetail[] {
  return values.flatMap((value, i) => (values.indexOf(value) < i ? [{ field: `${path}.${i}`, message: `"${value}" is given twice` }] : []));
}

/** `where`: parsed by the list query parser against `table`, as a list's `filter` is. */
async function checkWhere(path: string, where: Rule['where'], table: TableDef, related: boolean, ctx: RuleContext): Promise<ErrorDetail[]> {
  const project: ParseContext = {
    locales: ctx.locales,
    defaultLocale: ctx.defaultLocale,
    placeholders: STAND_INS,
    related: related ? await reachableTables(table, ctx.tables) : undefined,
  };
  try {
    parseFilters(JSON.stringify(where), table, project);
    return [];
  } catch (error) {
    if (error instanceof AppError && error.errorCode === 'INVALID_QUERY') return [{ field: path, message: error.message.replace(/^filter/, 'where') }];
    throw error;
  }
}

function checkFieldsRead(path: string, names: string[], table: TableDef): ErrorDetail[] {
  const unknown = names.flatMap((name, i) =>
    table.columns.some((c) => c.name === name) ? [] : [{ field: `${path}.${i}`, message: `"${name}" is not a column of table "${table.key}"` }],
  );
  return [...unknown, ...duplicates(path, names)];
}

/** `fields.write`: column names, or `column.locale` for one locale of a localized column. */
function checkFieldsWrite(path: string, names: string[], table: TableDef, ctx: RuleContext): ErrorDetail[] {
  const wrong = names.flatMap((entry, i): ErrorDetail[] => {
    const field = `${path}.${i}`;
    const [name, locale, ...rest] = entry.split('.');
    const column = table.columns.find((c) => c.name === name);
    if (!column || rest.length > 0) return [{ field, message: `"${entry}" is not a column of table "${table.key}"` }];
    if (locale === undefined) return [];
    if (!isLocalized(column)) return [{ field, message: `column "${name}" is not localized: name it without a locale` }];
    if (!ctx.locales.includes(locale)) return [{ field, message: `"${locale}" is not a project locale (${ctx.locales.join(', ')})` }];
    return [];
  });
  return [...wrong, ...duplicates(path, names)];
}

async function checkRule(path: string, rule: Rule, ctx: RuleContext): Promise<ErrorDetail[]> {
  const details: ErrorDetail[] = [];
  const add = (field: string, message: string) => details.push({ field: `${path}.${field}`, message });
  const files = rule.table === FILES;
  const all = rule.table === ALL_TABLES;
  const found = files || all ? null : await ctx.tables(rule.table);
  // Rules name tables by key: an id that happens to resolve is refused too.
  const table = found?.key === rule.table ? found : null;
  if (!files && !all && !table) add('table', `no table with the key "${rule.table}" in this project (or "*", "$files")`);

  if (rule.actions.length === 0) add('actions', 'needs at least one action');
  details.push(...duplicates(`${path}.actions`, rule.actions));
  if (files && rule.actions.includes('publish')) add(`actions.${rule.actions.indexOf('publish')}`, 'files are not published');

  if (rule.where !== undefined) {
    if (files) {
      const other = rule.where.find((item) => !FILE_FIELDS.some((f) => f.name === item.i));
      if (other) add('where', `a "$files" rule filters on name, mimeType and size only, not ${JSON.stringify(other.i) ?? 'nothing'}`);
      else details.push(...(await checkWhere(`${path}.where`, rule.where, pseudoTable(ctx.projectId, FILES, FILE_FIELDS), false, ctx)));
    } else if (all) {
      // Every table has the system fields; no column is common to all of them.
      const wrong = await checkWhere(`${path}.where`, rule.where, pseudoTable(ctx.projectId, ALL_TABLES, []), false, ctx);
      details.push(...wrong.map((d) => ({ ...d, message: `${d.message} (a "*" rule filters on system fields only)` })));
    } else if (table) {
      const dotted = rule.where.some((item) => typeof item.i === 'string' && item.i.includes('.'));
      details.push(...(await checkWhere(`${path}.where`, rule.where, table, dotted, ctx)));
    }
  }

  if (rule.fields !== undefined) {
    if (!table) {
      if (files || all) add('fields', `fields name columns of one table, not of "${rule.table}"`);
    } else {
      if (rule.fields.read) details.push(...checkFieldsRead(`${path}.fields.read`, rule.fields.read, table));
      if (rule.fields.write) details.push(...checkFieldsWrite(`${path}.fields.write`, rule.fields.write, table, ctx));
    }
  }

  if (rule.statuses !== undefined) {
    if (files) add('statuses', 'files have no status');
    else if (rule.statuses.length === 0) add('statuses', 'needs at least one status (leave statuses out for every status)');
    else details.push(...duplicates(`${path}.statuses`, rule.statuses));
  }
  if (files && rule.drafts !== undefined) add('drafts', 'files have no drafts');
  if (files && rule.writeAsDraft !== undefined) add('writeAsDraft', 'files have no drafts');
  return details;
}

/** Throws 422 listing every violation of `rules` (docs/roles.md#rules). */
export async function validateRules(rules: Rule[], ctx: RuleContext): Promise<void> {
  if (rules.length > MAX_RULES) throw validationError([{ field: 'rules', message: `at most ${MAX_RULES} rules, got ${rules.length}` }]);
  const details = (await Promise.all(rules.map((rule, i) => checkRule(`rules.${i}`, rule, ctx)))).flat();
  if (details.length > 0) throw validationError(details);
}
