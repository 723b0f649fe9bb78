import { badRequest } from '../../errors/app-error.js';
import type { ColumnSettings, ColumnType } from '../tables/table-def.js';

type Kind = 'boolean' | 'count' | 'number' | 'string' | 'options' | 'onDelete' | 'format' | 'any';

/** What deleting a referenced row does to the rows that reference it (docs/contents.md#references). */
export const ON_DELETE = ['setNull', 'restrict', 'cascade'] as const;

/** How a longtext's value is meant to be read: the console edits `markdown` with a preview (docs/contents.md#long-text). */
export const TEXT_FORMATS = ['plain', 'markdown'] as const;

const COMMON: Record<string, Kind> = { required: 'boolean', unique: 'boolean', defaultValue: 'any' };

/** The settings each type takes, besides required, unique and defaultValue (docs/contents.md#tables-and-columns). */
const BY_TYPE: Record<ColumnType, Record<string, Kind>> = {
  text: { minText: 'count', maxText: 'count', pattern: 'string', localized: 'boolean' },
  longtext: { minText: 'count', maxText: 'count', localized: 'boolean', format: 'format' },
  number: { min: 'number', max: 'number' },
  integer: { min: 'number', max: 'number' },
  boolean: {},
  date: {},
  datetime: {},
  email: {},
  url: { localized: 'boolean' },
  select: { options: 'options', multiple: 'boolean' },
  json: {},
  slug: { source: 'string' },
  reference: { table: 'string', multiple: 'boolean', onDelete: 'onDelete' },
  file: { multiple: 'boolean' },
};

const REQUIRED: Partial<Record<ColumnType, string>> = { select: 'options', reference: 'table' };

function checkKind(key: string, kind: Kind, value: unknown): void {
  const ok =
    kind === 'any' ||
    (kind === 'boolean' && typeof value === 'boolean') ||
    (kind === 'count' && Number.isSafeInteger(value) && (value as number) >= 0) ||
    (kind === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (kind === 'string' && typeof value === 'string' && value.length > 0 && value.length <= 1000) ||
    (kind === 'onDelete' && (ON_DELETE as readonly unknown[]).includes(value)) ||
    (kind === 'format' && (TEXT_FORMATS as readonly unknown[]).includes(value)) ||
    (kind === 'options' &&
      Array.isArray(value) &&
      value.length > 0 &&
      value.length <= 1000 &&
      value.every((o) => typeof o === 'string' && o.length > 0 && o.length <= 200) &&
      new Set(value).size === value.length);
  if (!ok) {
    const expected = {
      boolean: 'a boolean',
      count: 'a whole number ≥ 0',
      number: 'a finite number',
      string: 'a non-empty string',
      options: 'a non-empty array of distinct non-empty strings',
      onDelete: `one of ${ON_DELETE.join(', ')}`,
      format: `one of ${TEXT_FORMATS.join(', ')}`,
      any: 'any value',
    }[kind];
    throw badRequest(`Invalid request: settings.${key}: must be ${expected}`);
  }
}

/**
 * Checks the shape of a column's settings for its type: unknown or inapplicable settings,
 * wrong value types and missing required settings are 400 BAD_REQUEST naming `settings.<key>`
 * (docs/contents.md#tables-and-columns). Whether referenced things exist, and whether `defaultValue` is a valid value, are
 * semantic checks made by the caller (422).
 */
export function checkSettings(type: ColumnType, settings: Record<string, unknown>): ColumnSettings {
  const allowed = { ...COMMON, ...BY_TYPE[type] };
  for (const [key, value] of Object.entries(settings)) {
    // Own keys only: `constructor` or `toString` must not find Object.prototype's members.
    const kind = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
    if (!kind) throw badRequest(`Invalid request: settings.${key}: does not apply to ${type} columns`);
    checkKind(key, kind, value);
  }
  const required = REQUIRED[type];
  if (required && settings[required] === undefined) {
    throw badRequest(`Invalid request: settings.${required}: required for ${type} columns`);
  }
  const s = settings as ColumnSettings;
  if (s.min !== undefined && s.max !== undefined && s.min > s.max) throw badRequest('Invalid request: settings.min: must not exceed settings.max');
  if (s.minText !== undefined && s.maxText !== undefined && s.minText > s.maxText) {
    throw badRequest('Invalid request: settings.minText: must not exceed settings.maxText');
  }
  if (s.pattern !== undefined) {
    try {
      new RegExp(s.pattern, 'u');
    } catch {
      throw badRequest('Invalid request: settings.pattern: not a valid regular expression');
    }
  }
  if (s.unique && (s.multiple || type === 'json')) {
    throw badRequest(`Invalid request: settings.unique: not supported for ${s.multiple ? 'multiple' : 'json'} columns`);
  }
  return s;
}
