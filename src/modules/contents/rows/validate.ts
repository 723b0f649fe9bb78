import type { ErrorDetail } from '../../../errors/app-error.js';
import { findJsonProblem, MAX_JSON_DEPTH, stringProblem } from '../../../shared/json-guard.js';
import { isLocalized, type ColumnDef, type TableDef } from '../../tables/table-def.js';
import { checkValue } from './value-rules.js';
import { isPlainObject } from '../../../shared/schemas.js';

export interface Locales {
  locales: string[];
  defaultLocale: string;
}

export interface ValidatedData {
  /** The complete stored `data` (absent keys are null). */
  data: Record<string, unknown>;
  details: ErrorDetail[];
  /** Ids to look up before writing: referenced contents per table, and files. */
  references: { column: ColumnDef; tableId: string; ids: string[] }[];
  files: { column: ColumnDef; ids: string[] }[];
}

/** A key's own value (a column may be named like `constructor`). */
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

/** `Hello, Wörld!` → `hello-world` (lower-case ASCII, dashes; docs/contents.md#tables-and-columns). */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 180)
    .replace(/-+$/g, '');
}

/**
 * A localized column's new value: the locales given merged into the stored ones (`current`, null
 * on create), each checked; a null locale removes it, a plain value is the default locale's
 * (docs/contents.md). Null when no locale is left.
 */
function checkLocalized(column: ColumnDef, value: unknown, current: unknown, locales: Locales, details: ErrorDetail[]): unknown {
  const field = `data.${column.name}`;
  const entries = isPlainObject(value) ? Object.entries(value) : [[locales.defaultLocale, value] as const];
  const stored: Record<string, unknown> = isPlainObject(current) ? { ...current } : {};
  for (const [locale, v] of entries) {
    if (!locales.locales.includes(locale)) {
      details.push({ field: `${field}.${locale}`, message: `unknown locale (project locales: ${locales.locales.join(', ')})` });
      continue;
    }
    if (v === null) {
      delete stored[locale];
      continue;
    }
    const checked = checkValue(column, v);
    if (checked.ok) stored[locale] = checked.value;
    else details.push({ field: isPlainObject(value) ? `${field}.${locale}` : field, message: checked.message });
  }
  return Object.keys(stored).length > 0 ? stored : null;
}

/**
 * What PostgreSQL cannot store in a value (a NUL, an unpaired surrogate, a number beyond the
 * double range, nesting too deep; see json-guard), as a detail naming where. The JSON body layer
 * refuses these before a single write gets here; an import's lines come this way only.
 */
function unstorable(name: string, value: unknown): ErrorDetail | null {
  // Most values are plain: checked without the walk's allocations (imports check millions).
  if (typeof value === 'number') return Number.isFinite(value) ? null : { field: `data.${name}`, message: 'is a number beyond the representable range' };
  if (typeof value === 'string') {
    const reason = stringProblem(value);
    return reason ? { field: `data.${name}`, message: reason } : null;
  }
  if (typeof value !== 'object') return null;
  // The value sits two levels down a body (`{"data":{"<name>": …}}`): the same depth limit as a body's.
  const problem = findJsonProblem(value, MAX_JSON_DEPTH - 2);
  return problem ? { field: problem.path ? `data.${name}.${problem.path}` : `data.${name}`, message: problem.reason } : null;
}

/**
 * Validates `input` against the table's columns (docs/contents.md#contents) and merges it over `existing` (PUT) or
 * over the column defaults (create): a column given replaces the stored one, except a localized
 * column, which merges per locale (docs/contents.md). Every offence is collected; nothing is thrown.
 */
export function validateData(
  table: TableDef,
  locales: Locales,
  input: Record<string, unknown>,
  existing: Record<string, unknown> | null,
): ValidatedData {
  const details: ErrorDetail[] = [];
  const byName = columnsByName(table);
  // A plain object, filled in the order a Map would be: column names start with a letter, so no key is an index.
  const data: Record<string, unknown> = {};
  if (existing) for (const name of Object.keys(existing)) if (byName.has(name)) data[name] = existing[name];

  for (const name of Object.keys(input)) {
    const value = input[name];
    const column = byName.get(name);
    if (!column) {
      details.push({ field: `data.${name}`, message: 'unknown column' });
      continue;
    }
    if (value === null) {
      delete data[name];
      continue;
    }
    const problem = unstorable(name, value);
    if (problem) {
      details.push(problem);
      continue;
    }
    if (isLocalized(column)) {
      const stored = checkLocalized(column, value, own(data, name), locales, details);
      if (stored === null) delete data[name];
      else data[name] = stored;
      continue;
    }
    const checked = checkValue(column, value);
    if (checked.ok) data[name] = checked.value;
    else details.push({ field: `data.${name}`, message: checked.message });
  }

  for (const column of table.columns) {
    if (!existing && !Object.hasOwn(data, column.name) && !Object.hasOwn(input, column.name)) {
      const stored = storedDefault(column, locales.defaultLocale);
      if (stored !== null) data[column.name] = stored;
    }
    if (column.type === 'slug' && !Object.hasOwn(data, column.name)) deriveSlug(column, byName, data, locales);
    if (column.settings.required) checkRequired(column, data, locales, details);
  }

  return { data, details: details.length > 1 ? dedupe(details) : details, ...collectLookups(table, data) };
}

/** Each table definition's columns by name, built once per definition (they are not changed in place). */
const byNameOf = new WeakMap<TableDef, Map<string, ColumnDef>>();
function columnsByName(table: TableDef): Map<string, ColumnDef> {
  let byName = byNameOf.get(table);
  if (!byName) byNameOf.set(table, (byName = new Map(table.columns.map((c) => [c.name, c]))));
  return byName;
}

/**
 * A column's `defaultValue` as stored (null when it has none): normalised like a written value
 * (datetimes in UTC), and under the default locale for a localized column.
 */
export function storedDefault(column: ColumnDef, defaultLocale: string): unknown {
  const value = column.settings.defaultValue;
  if (value === undefined || value === null) return null;
  const checked = checkValue(column, value);
  const stored = checked.ok ? checked.value : value;
  return isLocalized(column) ? { [defaultLocale]: stored } : stored;
}

function deriveSlug(column: ColumnDef, byName: Map<string, ColumnDef>, data: Record<string, unknown>, locales: Locales): void {
  const source = column.settings.source ? byName.get(column.settings.source) : undefined;
  if (!source) return;
  const raw = own(data, source.name);
  const text = isLocalized(source) && isPlainObject(raw) ? raw[locales.defaultLocale] : raw;
  if (typeof text !== 'string') return;
  const slug = slugify(text);
  if (slug) data[column.name] = slug;
}

function checkRequired(column: ColumnDef, data: Record<string, unknown>, locales: Locales, details: ErrorDetail[]): void {
  const value = own(data, column.name);
  if (value === undefined) {
    if (!details.some((d) => d.field === `data.${column.name}` || d.field.startsWith(`data.${column.name}.`))) {
      details.push({ field: `data.${column.name}`, message: 'is required' });
    }
    return;
  }
  // For a localized column, `required` applies to the default locale.
  if (isLocalized(column) && isPlainObject(value) && value[locales.defaultLocale] === undefined) {
    details.push({ field: `data.${column.name}.${locales.defaultLocale}`, message: 'is required in the default locale' });
  }
}

function collectLookups(table: TableDef, data: Record<string, unknown>) {
  const references: ValidatedData['references'] = [];
  const files: ValidatedData['files'] = [];
  for (const column of table.columns) {
    if (column.type !== 'reference' && column.type !== 'file') continue;
    const value = own(data, column.name);
    if (value === undefined) continue;
    const ids = (Array.isArray(value) ? value : [value]) as string[];
    if (column.type === 'reference' && column.settings.table) references.push({ column, tableId: column.settings.table, ids });
    if (column.type === 'file') files.push({ column, ids });
  }
  return { references, files };
}

function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => (seen.has(d.field) ? false : (seen.add(d.field), true)));
}
