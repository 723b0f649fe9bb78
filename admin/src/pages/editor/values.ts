/**
 * The part of a column (data/columns `Column`) these conversions read; kept structural so that they
 * stay pure functions, tested without the console around them.
 */
export interface Column {
  name: string;
  type: string;
  settings: Record<string, unknown>;
}

/**
 * What a form field holds for each column type, and how it turns into the `data` value the API
 * takes (docs/contents.md#tables-and-columns). Text-like types, numbers, dates and JSON are edited as strings (what an input
 * holds); an empty string means "no value" and is sent as null, which clears the column.
 * Localized columns hold one such value per locale.
 */
export type FieldValue = string | boolean | string[] | null | Record<string, string>;
export type FormValues = Record<string, FieldValue>;

export const isLocalized = (column: Column): boolean => column.settings.localized === true;
export const isMultiple = (column: Column): boolean => column.settings.multiple === true;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const pad = (n: number) => String(n).padStart(2, '0');

/** A stored UTC date-time as a `datetime-local` input shows it: the browser's local time. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value (local time) as ISO-8601 with an offset (UTC), or null when empty. */
export function fromLocalInput(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

function scalarToField(column: Column, value: unknown): FieldValue {
  if (value === null || value === undefined) {
    if (column.type === 'boolean') return false;
    if (column.type === 'select' || column.type === 'reference' || column.type === 'file') return isMultiple(column) ? [] : null;
    return '';
  }
  switch (column.type) {
    case 'boolean':
      return value === true;
    case 'number':
    case 'integer':
      return String(value);
    case 'datetime':
      return toLocalInput(String(value));
    case 'json':
      return JSON.stringify(value, null, 2);
    case 'select':
    case 'reference':
    case 'file':
      if (isMultiple(column)) return Array.isArray(value) ? value.map(String) : [String(value)];
      return String(value);
    default:
      return String(value);
  }
}

/** The form value of a stored column value. */
export function toField(column: Column, value: unknown, locales: string[]): FieldValue {
  if (!isLocalized(column)) return scalarToField(column, value);
  const stored = isRecord(value) ? value : {};
  return Object.fromEntries(locales.map((locale) => [locale, scalarToField(column, stored[locale]) as string]));
}

export function toFields(columns: Column[], data: Record<string, unknown>, locales: string[]): FormValues {
  return Object.fromEntries(columns.map((column) => [column.name, toField(column, data[column.name], locales)]));
}

/** The starting values of a new row: each column's defaultValue, else empty. */
export function defaultFields(columns: Column[], locales: string[], defaultLocale: string): FormValues {
  return Object.fromEntries(
    columns.map((column) => {
      const initial = column.settings.defaultValue;
      const value = isLocalized(column) && initial !== undefined && initial !== null ? { [defaultLocale]: initial } : initial;
      return [column.name, toField(column, value, locales)];
    }),
  );
}

/** A value the browser cannot turn into the column's type; the API is never asked about it. */
export class LocalError extends Error {}

function fieldToScalar(column: Column, value: FieldValue): unknown {
  if (Array.isArray(value)) return value;
  if (typeof value === 'boolean') return value;
  if (value === null || value === '' || typeof value !== 'string') return null;
  switch (column.type) {
    case 'number':
    case 'integer': {
      const n = Number(value.trim());
      // Not a number: sent as typed, so that the API's 422 says what it expects.
      return value.trim() !== '' && Number.isFinite(n) ? n : value;
    }
    case 'datetime':
      return fromLocalInput(value);
    case 'json':
      try {
        return JSON.parse(value) as unknown;
      } catch {
        throw new LocalError('is not valid JSON');
      }
    default:
      return value;
  }
}

/**
 * The `data` value of a form value: null clears. A localized column names every locale of the
 * form, an emptied one as null: an update merges localized values per locale (docs/contents.md),
 * so a locale left out would be kept, not removed. With every locale empty, the column is cleared.
 */
export function toData(column: Column, value: FieldValue): unknown {
  if (!isLocalized(column)) return fieldToScalar(column, value);
  const byLocale = Object.entries((value ?? {}) as Record<string, string>);
  if (byLocale.every(([, v]) => v === '')) return null;
  return Object.fromEntries(byLocale.map(([locale, v]) => [locale, fieldToScalar(column, v)]));
}

/**
 * Whether two form values are equal. Asked on every keystroke (is the field still edited?): texts
 * are compared as they are, never serialized, so a 1 MB body costs a comparison, not two copies.
 */
export function sameValue(a: FieldValue | undefined, b: FieldValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]);
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * The `data` of a save: every edited column (an update merges them, docs/contents.md#contents), or for a new row
 * every column with a value (absent ones take their defaults; an empty slug is derived).
 * Values the browser cannot convert come back as errors by field instead.
 */
export function buildData(columns: Column[], values: FormValues, names: string[]): { data: Record<string, unknown>; errors: Record<string, string> } {
  const data: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const column of columns) {
    if (!names.includes(column.name)) continue;
    try {
      data[column.name] = toData(column, values[column.name] ?? null);
    } catch (error) {
      if (!(error instanceof LocalError)) throw error;
      errors[`data.${column.name}`] = error.message;
    }
  }
  return { data, errors };
}

/** The column that names a row for people: a `title`/`name`-like text column, else the first text one, else the slug. */
export function titleColumn<C extends Column>(columns: C[]): C | undefined {
  const texts = columns.filter((c) => c.type === 'text');
  return texts.find((c) => /^(title|name|label|headline)$/i.test(c.name)) ?? texts[0] ?? columns.find((c) => c.type === 'slug');
}

/** A row's readable label: its title-like value (in `locale`, else any), else its slug, else its id. */
export function rowLabel(row: { id: string; slug?: string | null; data?: Record<string, unknown> }, title: Column | undefined, locale: string): string {
  const value = title ? row.data?.[title.name] : undefined;
  if (typeof value === 'string' && value !== '') return value;
  if (isRecord(value)) {
    const text = value[locale] ?? Object.values(value).find((v) => typeof v === 'string' && v !== '');
    if (typeof text === 'string' && text !== '') return text;
  }
  return row.slug ?? row.id;
}
