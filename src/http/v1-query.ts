import type { z } from 'zod';
import { invalidQuery, type AppError } from '../errors/app-error.js';

/*
 * How `/v1` reads a query string into a procedure's input (docs/contents.md#list-queries: a bad `page`, `size`,
 * `filter`, `op`... is 400 INVALID_QUERY). trpc-to-openapi hands the procedures every value as
 * text and lets zod coerce numbers with `Number()`, which took `page=0x10` as 16, `1e1` as 10,
 * `%201` as 1 and `size=` as absent; it dropped empty values (`op=`) and kept only `page[]`'s
 * key, which zod then stripped. Here each parameter the operation declares takes exactly one
 * plain value:
 *
 * - given once: a repeated parameter (`page=1&page=2`) or a bracketed one (`page[]=1`,
 *   `page[x]=1`) is refused, unless the parameter is declared as an array;
 * - not empty: `page=`, `op=`, `fields=` are refused; leave a parameter out to get its default;
 * - integers in plain decimal: an optional `-` and digits without a leading zero (`0`, `12`,
 *   `-3`); hex, octal-looking `010`, exponents, a `+`, spaces, fractions are refused. Other
 *   numbers may have a decimal fraction (`1.5`). The schema then checks the range.
 * - booleans (`z.boolean()`): `true` or `false`.
 *
 * Parameters the operation does not declare are passed on as before (zod strips them).
 */

/** A query parameter given once, as express reads it (a repeated one is an array: not a string). */
export const queryString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export type ParamKind = 'integer' | 'number' | 'boolean' | 'array' | 'text';

/** The declared query parameters of one operation and how each is read. */
export type QueryShape = ReadonlyMap<string, ParamKind>;

type Schema = z.core.$ZodType;

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch']);

function unwrap(schema: Schema): Schema {
  let current = schema;
  while (WRAPPERS.has(current._zod.def.type)) current = (current._zod.def as unknown as { innerType: Schema }).innerType;
  return current;
}

const isIntegerFormat = (format: unknown) => typeof format === 'string' && format.includes('int');

function isInteger(schema: Schema): boolean {
  const def = schema._zod.def as { format?: unknown; checks?: { _zod: { def: { check?: string; format?: unknown } } }[] };
  if (isIntegerFormat(def.format)) return true;
  return (def.checks ?? []).some((c) => c._zod.def.check === 'number_format' && isIntegerFormat(c._zod.def.format));
}

export function paramKind(schema: Schema): ParamKind {
  const inner = unwrap(schema);
  switch (inner._zod.def.type) {
    case 'number':
      return isInteger(inner) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    default:
      return 'text';
  }
}

/** The query parameters of an input object schema: every key but the path parameters. */
export function queryShapeOf(shape: Record<string, Schema>, pathParams: readonly string[]): QueryShape {
  return new Map(
    Object.entries(shape)
      .filter(([key]) => !pathParams.includes(key))
      .map(([key, schema]) => [key, paramKind(schema)]),
  );
}

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** `page[]`, `page[0]`, `page[a][b]`: the parameter's name and what follows it. */
const BRACKETED = /^([^[\]]+)\[/;

const quoted = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

function readValue(key: string, kind: ParamKind, value: string): unknown {
  if (value === '') throw invalidQuery(`${key}: empty value; leave the parameter out to get its default`);
  switch (kind) {
    case 'integer':
      if (!INTEGER.test(value) || value === '-0') throw invalidQuery(`${key}: must be an integer in plain decimal digits, got ${quoted(value)}`);
      return Number(value);
    case 'number':
      if (!NUMBER.test(value) || /^-0(\.0+)?$/.test(value)) throw invalidQuery(`${key}: must be a decimal number, got ${quoted(value)}`);
      return Number(value);
    case 'boolean':
      if (value !== 'true' && value !== 'false') throw invalidQuery(`${key}: must be true or false, got ${quoted(value)}`);
      return value === 'true';
    default:
      return value;
  }
}

/**
 * The procedure's input from a parsed query string (express's `simple` parser: a string per
 * parameter, an array for a repeated one), or the first reason to refuse it.
 */
export function readQuery(query: Record<string, unknown>, shape: QueryShape): { input: Record<string, unknown> } | { error: AppError } {
  // No prototype: a parameter named `__proto__` is then a key like any other.
  const input: Record<string, unknown> = Object.create(null);
  try {
    for (const [key, raw] of Object.entries(query)) {
      const kind = shape.get(key);
      if (kind === undefined) {
        const base = BRACKETED.exec(key)?.[1];
        if (base !== undefined && shape.has(base)) throw invalidQuery(`${base}: give it as ${base}=value (${quoted(key)} is not accepted)`);
        // Not a parameter of this operation: handed on as the adapter did (first value), then stripped.
        if (raw !== '' && raw !== undefined) input[key] = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
        continue;
      }
      const values = (Array.isArray(raw) ? raw : [raw]).map(String);
      if (kind === 'array') {
        input[key] = values.map((value) => readValue(key, 'text', value));
        continue;
      }
      if (values.length > 1) throw invalidQuery(`${key}: given ${values.length} times; give it once`);
      input[key] = readValue(key, kind, values[0]);
    }
  } catch (error) {
    return { error: error as AppError };
  }
  return { input };
}

/**
 * For express routes that read their query themselves (import, export, the event stream): the
 * parameters as readQuery reads them, or its 400 thrown, after the route's access checks.
 */
export function readQueryOrThrow(query: Record<string, unknown>, shape: QueryShape): Record<string, unknown> {
  const read = readQuery(query, shape);
  if ('error' in read) throw read.error;
  return read.input;
}
