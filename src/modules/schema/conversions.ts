import { checkValue } from '../contents/index.js';
import { isLocalized, isMultiple, type ColumnDef, type ColumnType } from '../tables/table-def.js';
import { canonical } from './snapshot.js';

/**
 * What a column change does to one stored value (docs/environments.md#type-changes): the value
 * converted to the new definition where that keeps its meaning (integer → number, number →
 * text, "12" → 12, a value → a one-element list…), or the reason it cannot be. `lossy`: the
 * conversion loses something (other locales of a column that stops being localized, "007"
 * read as 7): the change is then destructive for that row.
 */
export type Converted = { ok: true; value: unknown; lossy: boolean } | { ok: false; message: string };

const fail = (message: string): Converted => ({ ok: false, message });
const done = (value: unknown, lossy = false): Converted => ({ ok: true, value, lossy });

const TEXT_TARGETS: ReadonlySet<ColumnType> = new Set(['text', 'longtext', 'select', 'json']);

/** One scalar (not a list, not a locale map) to the scalar form of `to`. */
function convertScalar(fromType: ColumnType, to: ColumnType, value: unknown): Converted {
  if (fromType === to || to === 'json') return done(value);
  if (to === 'number' || to === 'integer') {
    if (typeof value === 'number') return to === 'integer' && !Number.isSafeInteger(value) ? fail(`${value} is not an integer`) : done(value);
    if (typeof value !== 'string' || value.trim() === '') return fail(`${JSON.stringify(value)} is not a number`);
    const n = Number(value.trim());
    if (!Number.isFinite(n) || (to === 'integer' && !Number.isSafeInteger(n))) return fail(`${JSON.stringify(value)} is not ${to === 'integer' ? 'an integer' : 'a number'}`);
    return done(n, String(n) !== value);
  }
  if (to === 'boolean') {
    if (typeof value === 'boolean') return done(value);
    if (value === 'true' || value === 'false') return done(value === 'true');
    return fail(`${JSON.stringify(value)} is not true or false`);
  }
  if (typeof value === 'string') return done(value);
  if ((typeof value === 'number' || typeof value === 'boolean') && TEXT_TARGETS.has(to)) return done(String(value));
  return fail(`${JSON.stringify(value)} does not convert to ${to}`);
}

/** A value without its locales or lists: to `to`'s list-ness. */
function convertPlain(from: ColumnDef, to: ColumnDef, value: unknown): Converted {
  const many = isMultiple(to);
  const items = Array.isArray(value) && (isMultiple(from) || from.type === 'json') ? value : null;
  if (items && !many) {
    if (items.length === 0) return done(null);
    if (items.length > 1) return fail(`holds ${items.length} values; ${to.name} holds one`);
    return convertScalar(from.type, to.type, items[0]);
  }
  if (!many) return convertScalar(from.type, to.type, value);
  const list = items ?? [value];
  const out: unknown[] = [];
  let lossy = false;
  for (const item of list) {
    const converted = convertScalar(from.type, to.type, item);
    if (!converted.ok) return converted;
    out.push(converted.value);
    lossy ||= converted.lossy;
  }
  return done(out, lossy);
}

/** Converts then checks the result against `to` (its type and settings), as a write would. */
function convertChecked(from: ColumnDef, to: ColumnDef, value: unknown): Converted {
  if (value === null) return done(null);
  const converted = convertPlain(from, to, value);
  if (!converted.ok || converted.value === null) return converted;
  const checked = checkValue(to, converted.value);
  return checked.ok ? done(checked.value, converted.lossy) : fail(checked.message);
}

const isLocaleMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function convertValue(from: ColumnDef, to: ColumnDef, stored: unknown, defaultLocale: string): Converted {
  const fromLocalized = isLocalized(from) && isLocaleMap(stored);
  if (fromLocalized && isLocalized(to)) {
    const out: Record<string, unknown> = {};
    let lossy = false;
    for (const [locale, value] of Object.entries(stored)) {
      const converted = convertChecked(from, to, value);
      if (!converted.ok) return fail(`${locale}: ${converted.message}`);
      out[locale] = converted.value;
      lossy ||= converted.lossy;
    }
    return done(out, lossy);
  }
  if (fromLocalized) {
    // The default locale's value stays; the others go.
    const others = Object.entries(stored).some(([locale, value]) => locale !== defaultLocale && value !== null && value !== '');
    const converted = convertChecked(from, to, stored[defaultLocale] ?? null);
    return converted.ok ? done(converted.value, converted.lossy || others) : converted;
  }
  // A plain value of a column that becomes localized is the default locale's (the columns service wraps it).
  return convertChecked(from, to, stored);
}

/** Whether a column change needs the stored values converted or checked one by one. */
export function touchesValues(from: ColumnDef, to: ColumnDef): boolean {
  if (from.type !== to.type) return true;
  // required and unique have their own checks; a default, a slug's source or onDelete leave stored values as they are.
  const strip = ({ required: _r, unique: _u, defaultValue: _d, source: _s, onDelete: _o, table: _t, ...rest }: ColumnDef['settings']) => rest;
  return canonical(strip(from.settings)) !== canonical(strip(to.settings));
}
