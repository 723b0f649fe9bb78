import { invalidQuery } from '../../errors/app-error.js';
import { isLocalized, isMultiple, type TableDef } from '../tables/table-def.js';
import { resolveName } from './parse-fields.js';
import type { DirectField, FieldRef, Hop, ParseContext } from './types.js';

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

/** Most reference hops of a dotted path (`a.b.c.field`: three). */
export const MAX_HOPS = 3;

/**
 * `author.company.name`: the reference columns on the way, each in the table the previous one
 * points at, then the field of the last table (docs/contents.md#filters-and-sorts-through-references).
 */
function resolvePath(part: string, item: JsonObject, segments: string[], table: TableDef, project: ParseContext): FieldRef {
  if (segments.length - 1 > MAX_HOPS) throw invalidQuery(`${part}.i: at most ${MAX_HOPS} references deep`);
  const via: Hop[] = [];
  let current = table;
  for (const name of segments.slice(0, -1)) {
    const column = current.columns.find((c) => c.name === name);
    if (!column || column.type !== 'reference') {
      throw invalidQuery(`${part}.i: ${describeName(name)} is not a reference column of table "${current.key}"`);
    }
    const next = project.related?.get(column.settings.table!);
    if (!next) throw invalidQuery(`${part}.i: the table of reference column "${name}" no longer exists`);
    via.push({ column, table: next });
    current = next;
  }
  const field = resolveFieldRef(part, { ...item, i: segments.at(-1) }, current, project) as DirectField;
  return { source: 'related', via, field };
}

/**
 * Resolves `i` (and `l`) of one sort or filter item at `part` (e.g. `filter[2]`). `l` applies to
 * localized columns only and must be a project locale; a localized column without `l` uses the
 * project's default locale. A dotted name goes through reference columns.
 */
export function resolveFieldRef(part: string, item: JsonObject, table: TableDef, project: ParseContext): FieldRef {
  const name = item.i;
  if (typeof name !== 'string' || name === '') throw invalidQuery(`${part}.i: must be a field name, got ${describeName(name)}`);
  const path = name.startsWith('data.') ? name.slice('data.'.length) : name;
  if (path.includes('.')) return resolvePath(part, item, path.split('.'), table, project);
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
      : field.source === 'related'
        ? `${describeField(field.field)} through ${field.via.map((h) => `"${h.column.name}"`).join(', ')}`
        : `${isMultiple(field.column) ? 'multiple ' : ''}${field.column.type} column "${field.column.name}"`;
