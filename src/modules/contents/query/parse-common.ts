import { invalidQuery } from '../../../errors/app-error.js';
import { isLocalized, isMultiple, type TableDef } from '../../tables/table-def.js';
import { resolveName } from './parse-fields.js';
import type { FieldRef, ProjectLocales } from './types.js';

export type JsonObject = { [key: string]: unknown };

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `sort` / `filter`: a JSON array (absent = empty), each item an object with known keys. A
 * blank value is no JSON, and refused like any other.
 */
export function parseJsonArray(param: 'sort' | 'filter', raw: string | undefined, keys: readonly string[]): JsonObject[] {
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidQuery(`${param}: malformed JSON`);
  }
  if (!Array.isArray(parsed)) throw invalidQuery(`${param}: must be a JSON array of objects`);
  return parsed.map((item: unknown, index) => {
    if (!isJsonObject(item)) throw invalidQuery(`${param}[${index}]: must be an object`);
    const unknown = Object.keys(item).find((k) => !keys.includes(k));
    if (unknown !== undefined) throw invalidQuery(`${param}[${index}]: unknown key "${unknown.slice(0, 40)}"`);
    return item;
  });
}

const describeName = (v: unknown) => (typeof v === 'string' ? `"${v.slice(0, 100)}"` : JSON.stringify(v) ?? String(v));

/**
 * Resolves `i` (and `l`) of one sort or filter item at `part` (e.g. `filter[2]`). `l` applies to
 * localized columns only and must be a project locale; a localized column without `l` uses the
 * project's default locale (SPEC §7).
 */
export function resolveFieldRef(part: string, item: JsonObject, table: TableDef, project: ProjectLocales): FieldRef {
  const name = item.i;
  if (typeof name !== 'string' || name === '') throw invalidQuery(`${part}.i: must be a field name, got ${describeName(name)}`);
  const resolved = resolveName(name, table);
  if (!resolved) throw invalidQuery(`${part}.i: unknown field ${describeName(name)}`);
  const l = item.l ?? null;
  if (resolved.system) {
    if (l !== null) throw invalidQuery(`${part}.l: system field "${resolved.system}" is not localized`);
    return { source: 'system', name: resolved.system };
  }
  const column = resolved.column;
  if (l === null) return { source: 'column', column, locale: isLocalized(column) ? project.defaultLocale : null };
  if (!isLocalized(column)) throw invalidQuery(`${part}.l: column "${column.name}" is not localized`);
  if (typeof l !== 'string' || !project.locales.includes(l)) {
    throw invalidQuery(`${part}.l: ${describeName(l)} is not a project locale (${project.locales.join(', ')})`);
  }
  return { source: 'column', column, locale: l };
}

/** How a field is named in messages: `number column "price"`, `system field "createdAt"`. */
export const describeField = (field: FieldRef): string =>
  field.source === 'system'
    ? `system field "${field.name}"`
    : field.source === 'relevance'
      ? 'the search relevance "_relevance"'
      : `${isMultiple(field.column) ? 'multiple ' : ''}${field.column.type} column "${field.column.name}"`;
