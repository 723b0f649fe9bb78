import { matchesPattern } from '../../../shared/bounded-regex.js';
import { isUuid } from '../../../shared/ids.js';
import type { ColumnDef } from '../../tables/table-def.js';

/** A stored value, or the reason the given one is refused (a 422 detail message). */
export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

const ok = (value: unknown): Checked => ({ ok: true, value });
const fail = (message: string): Checked => ({ ok: false, message });

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The number of code points of `s`, without building an array of them. */
function codePoints(s: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return s.length - surrogatePairs;
}

function validDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function checkText(column: ColumnDef, value: unknown): Checked {
  if (typeof value !== 'string') return fail('must be a string');
  const { minText, maxText, pattern } = column.settings;
  const length = minText === undefined && maxText === undefined ? 0 : codePoints(value);
  if (minText !== undefined && length < minText) return fail(`must be at least ${minText} characters long`);
  if (maxText !== undefined && length > maxText) return fail(`must be at most ${maxText} characters long`);
  if (pattern !== undefined) {
    const matched = matchesPattern(pattern, value);
    if (matched === 'timeout') return fail('could not be checked against the pattern in time; the pattern backtracks too much');
    if (!matched) return fail(`must match the pattern ${pattern}`);
  }
  return ok(value);
}

function checkNumber(column: ColumnDef, value: unknown): Checked {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a number');
  if (column.type === 'integer' && !Number.isSafeInteger(value)) return fail('must be an integer');
  const { min, max } = column.settings;
  if (min !== undefined && value < min) return fail(`must be at least ${min}`);
  if (max !== undefined && value > max) return fail(`must be at most ${max}`);
  return ok(value);
}

function checkIdList(column: ColumnDef, value: unknown, what: string): Checked {
  const one = (v: unknown) => typeof v === 'string' && isUuid(v);
  if (column.settings.multiple) {
    if (!Array.isArray(value) || !value.every(one)) return fail(`must be an array of ${what} ids`);
    return ok([...new Set((value as string[]).map((v) => v.toLowerCase()))]);
  }
  return one(value) ? ok((value as string).toLowerCase()) : fail(`must be a ${what} id`);
}

/**
 * Checks one non-null value against its column (docs/contents.md#tables-and-columns) and returns what is stored:
 * datetimes are normalised to UTC so that their text order is their time order.
 * Existence of referenced rows and files is checked separately (it needs the database).
 */
export function checkValue(column: ColumnDef, value: unknown): Checked {
  switch (column.type) {
    case 'text':
    case 'longtext':
      return checkText(column, value);
    case 'number':
    case 'integer':
      return checkNumber(column, value);
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : fail('must be true or false');
    case 'date':
      return typeof value === 'string' && validDate(value) ? ok(value) : fail('must be a date YYYY-MM-DD');
    case 'datetime': {
      const time = typeof value === 'string' && DATETIME.test(value) ? Date.parse(value) : NaN;
      return Number.isNaN(time) ? fail('must be an ISO-8601 date-time with an offset') : ok(new Date(time).toISOString());
    }
    case 'email':
      return typeof value === 'string' && value.length <= 320 && EMAIL.test(value) ? ok(value) : fail('must be an e-mail address');
    case 'url': {
      if (typeof value !== 'string' || value.length > 2048) return fail('must be an absolute URL');
      try {
        return /^https?:$/.test(new URL(value).protocol) ? ok(value) : fail('must be an http(s) URL');
      } catch {
        return fail('must be an absolute URL');
      }
    }
    case 'select': {
      const options = column.settings.options ?? [];
      if (column.settings.multiple) {
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && options.includes(v))) {
          return fail(`must be an array of: ${options.join(', ')}`);
        }
        return ok([...new Set(value as string[])]);
      }
      return typeof value === 'string' && options.includes(value) ? ok(value) : fail(`must be one of: ${options.join(', ')}`);
    }
    case 'json':
      return ok(value);
    case 'slug':
      return typeof value === 'string' && value.length <= 200 && SLUG.test(value)
        ? ok(value)
        : fail('must be lower-case letters and digits separated by single dashes');
    case 'reference':
      return checkIdList(column, value, 'contents');
    case 'file':
      return checkIdList(column, value, 'file');
  }
}
