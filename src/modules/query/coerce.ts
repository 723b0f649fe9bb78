/**
 * Coercion of filter values to a field's type (docs/contents.md#list-queries: `v` may be a string and is coerced; a
 * value that cannot be is 400). A scalar `v` is either a string (the query string's form: `"12"`,
 * `"true"`, `"2026-01-01"`) or a JSON value of the field's own type: a number for number and
 * integer fields, `true`/`false` for boolean ones. Nothing else is converted: `true` for a
 * number, `12` for a text or a date, `null`, arrays and objects are refused. Results are in the
 * stored form so that comparisons are exact: datetimes become UTC `YYYY-MM-DDTHH:mm:ss.sssZ`,
 * ids lower case.
 */
import { isUuid } from '../../shared/ids.js';
import { STATUSES, type Scalar, type ValueKind } from './types.js';

/** Longest string a filter value (or one item of a list) may be. */
export const MAX_VALUE_LENGTH = 1000;

export type Coerced = { ok: true; value: Scalar } | { ok: false; reason: string };
const ok = (value: Scalar): Coerced => ({ ok: true, value });
const fail = (reason: string): Coerced => ({ ok: false, reason });

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** ISO-8601 date, or date-time with optional seconds, fraction and offset (no offset = UTC). */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

export function isValidDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return year >= 1 && d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

interface Instant {
  /** Milliseconds since the epoch, fraction below the millisecond dropped. */
  ms: number;
  /** PostgreSQL-ready text keeping microseconds, with an explicit offset. */
  text: string;
}

/** Parses an ISO-8601 date or date-time; a date alone is midnight UTC, no offset means UTC. */
export function parseInstant(value: string): Instant | null {
  const m = DATE_TIME.exec(value.trim());
  if (!m || !isValidDate(m[1])) return null;
  const [hh, mi, ss] = [m[2] ?? '00', m[3] ?? '00', m[4] ?? '00'];
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59) return null;
  const fraction = (m[5] ?? '').slice(0, 6);
  let offsetMinutes = 0;
  let offset = 'Z';
  if (m[6] && m[6].toUpperCase() !== 'Z') {
    const digits = m[6].replace(':', '');
    const [oh, om] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5))];
    if (oh > 15 || om > 59) return null;
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (oh * 60 + om);
    offset = `${digits.slice(0, 3)}:${digits.slice(3, 5)}`;
  }
  const [year, month, day] = m[1].split('-').map(Number);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(Number(hh), Number(mi) - offsetMinutes, Number(ss), Number(fraction.padEnd(3, '0').slice(0, 3)));
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) return null;
  return { ms: d.getTime(), text: `${m[1]}T${hh}:${mi}:${ss}${fraction ? `.${fraction}` : ''}${offset}` };
}

const describe = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** The JSON type a field takes besides a string, if any. */
const NATIVE: Partial<Record<ValueKind, 'number' | 'boolean'>> = { number: 'number', integer: 'number', boolean: 'boolean' };

/** What a field accepts, for messages: "a number or a string", "a string". */
const accepted = (kind: ValueKind) => (NATIVE[kind] ? `a ${NATIVE[kind]} or a string` : 'a string');

/** Coerces one scalar filter value to `kind`; arrays, objects and null are never scalars. */
export function coerceScalar(kind: ValueKind, raw: unknown): Coerced {
  if (raw === null || typeof raw === 'object') return fail(`must be a single ${kind === 'option' ? 'text' : kind} value`);
  if (typeof raw === 'string') {
    if (raw.length > MAX_VALUE_LENGTH) return fail(`is longer than ${MAX_VALUE_LENGTH} characters`);
    if (raw.includes('\u0000')) return fail('contains a NUL character');
  } else if (typeof raw !== NATIVE[kind]) {
    return fail(`${describe(raw)} is a JSON ${typeof raw}; ${kind === 'option' ? 'text' : kind} values are ${accepted(kind)}`);
  }
  if (typeof raw === 'number' && !Number.isFinite(raw)) return fail('is not a finite number');
  switch (kind) {
    case 'text':
    case 'option':
      return ok(String(raw));
    case 'number':
    case 'integer': {
      const text = typeof raw === 'string' ? raw.trim() : null;
      const n = typeof raw === 'number' ? raw : text !== null && NUMBER.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(n)) return fail(`${describe(raw)} is not ${kind === 'integer' ? 'an integer' : 'a number'}`);
      if (kind === 'integer' && (!Number.isSafeInteger(n) || (text !== null && !INTEGER.test(text)))) {
        return fail(`${describe(raw)} is not an integer`);
      }
      return ok(n);
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return ok(raw);
      const text = String(raw).trim().toLowerCase();
      return text === 'true' ? ok(true) : text === 'false' ? ok(false) : fail(`${describe(raw)} is not true or false`);
    }
    case 'date':
      return typeof raw === 'string' && isValidDate(raw.trim()) ? ok(raw.trim()) : fail(`${describe(raw)} is not a date YYYY-MM-DD`);
    case 'datetime':
    case 'timestamp': {
      const instant = typeof raw === 'string' ? parseInstant(raw) : null;
      if (!instant) return fail(`${describe(raw)} is not an ISO-8601 date-time`);
      // datetime columns hold millisecond UTC text; timestamptz system fields keep microseconds.
      return ok(kind === 'datetime' ? new Date(instant.ms).toISOString() : instant.text);
    }
    case 'uuid':
      return typeof raw === 'string' && isUuid(raw.trim()) ? ok(raw.trim().toLowerCase()) : fail(`${describe(raw)} is not a UUID`);
    case 'status': {
      const status = String(raw).trim().toUpperCase();
      return (STATUSES as readonly string[]).includes(status)
        ? ok(status)
        : fail(`${describe(raw)} is not a status (${STATUSES.join(', ')})`);
    }
    case 'json':
      return fail('json columns only take the null operator');
  }
}

/** `true`/`false` or their strings, for the `null` operator. */
export function coerceFlag(raw: unknown): boolean | null {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return null;
}
