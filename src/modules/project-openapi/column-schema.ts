import { isLocalized, isMultiple, type ColumnDef } from '../tables/table-def.js';
import { SLUG } from '../contents/index.js';

/*
 * JSON schemas (OpenAPI 3.1) of contents values, from a column's type and settings (docs/contents.md#tables-and-columns),
 * mirroring what value-rules.ts accepts and what is stored: a client generated from them sends
 * what the API validates and reads what it answers.
 */

export type JsonSchema = Record<string, unknown>;

export interface DocColumn extends ColumnDef {
  label: string;
}

/** What the schemas of one table need to know about the project and its other tables. */
export interface SchemaContext {
  locales: string[];
  defaultLocale: string;
  /** Table id → key, to name the table a reference column points at. */
  tableKeys: Map<string, string>;
  /** The component that types an expanded row of a table (`expand`): the row, or the list item with `fields`. */
  expandedRow?: (tableId: string, partial: boolean) => string | undefined;
}

/** A File as `expand` answers it (the same object as `GET /files/{fileId}`). */
const EXPANDED_FILE: JsonSchema = {
  type: 'object',
  description: 'The File (with `expand`)',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    mimeType: { type: 'string' },
    size: { type: 'integer' },
    sha256: { type: 'string' },
    url: { type: 'string', description: 'Where its bytes are served' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
  required: ['id'],
};

/** Bounds of `integer` values (value-rules: Number.isSafeInteger). */
const SAFE = Number.MAX_SAFE_INTEGER;

const defined = (schema: JsonSchema): JsonSchema =>
  Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));

/** One value of the column, as written and as stored (not localized, not multiple). */
function singleValue(column: DocColumn, context: SchemaContext): JsonSchema {
  const s = column.settings;
  switch (column.type) {
    case 'text':
      // value-rules anchors the pattern (`^(?:p)$`); JSON Schema patterns are unanchored.
      return defined({ type: 'string', minLength: s.minText, maxLength: s.maxText, pattern: s.pattern === undefined ? undefined : `^(?:${s.pattern})$` });
    case 'longtext':
      return defined({ type: 'string', minLength: s.minText, maxLength: s.maxText, description: 'Markdown or HTML, stored as given' });
    case 'number':
      return defined({ type: 'number', minimum: s.min, maximum: s.max });
    case 'integer':
      return { type: 'integer', minimum: s.min ?? -SAFE, maximum: s.max ?? SAFE };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time', description: 'ISO-8601 with an offset; answered in UTC' };
    case 'email':
      return { type: 'string', format: 'email', maxLength: 320 };
    case 'url':
      return { type: 'string', format: 'uri', maxLength: 2048, description: 'An absolute http(s) URL' };
    case 'select':
      return { type: 'string', enum: s.options ?? [] };
    case 'json':
      return { description: 'Any JSON value' };
    case 'slug':
      return { type: 'string', pattern: SLUG.source, maxLength: 200 };
    case 'reference': {
      const target = s.table ? context.tableKeys.get(s.table) : undefined;
      return { type: 'string', format: 'uuid', description: `Id of a contents row of table \`${target ?? s.table}\`` };
    }
    case 'file':
      return { type: 'string', format: 'uuid', description: 'Id of a file of this project (bytes at `/files/{id}/content`)' };
  }
}

/**
 * In an answer, a reference or file column expanded with `expand` (docs/contents.md#expand) holds the row or
 * the File instead of the id; a row the caller may not see, or one that is gone, is null (and
 * left out of arrays).
 */
function expanded(column: DocColumn, context: SchemaContext, partial: boolean): JsonSchema | null {
  if (column.type === 'file') return EXPANDED_FILE;
  if (column.type !== 'reference' || !column.settings.table) return null;
  const name = context.expandedRow?.(column.settings.table, partial);
  return name ? { $ref: `#/components/schemas/${name}` } : null;
}

/** The column's value: an array of values when `multiple`. */
function value(column: DocColumn, context: SchemaContext, mode?: Mode, partial = false): JsonSchema {
  let single = singleValue(column, context);
  const row = mode === 'read' ? expanded(column, context, partial) : null;
  if (row) {
    const choices = isMultiple(column) ? [single, row] : [single, row, { type: 'null' }];
    single = { anyOf: choices, description: `${single.description ?? ''}; with \`expand=${column.name}\`, the ${column.type === 'file' ? 'File' : 'row'} itself`.replace(/^; /, '') };
  }
  return isMultiple(column) ? { type: 'array', items: single } : single;
}

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/** What the column's schema says beside its shape: label, rules, default. */
function annotations(column: DocColumn, mode: Mode, shapeDescription: unknown): JsonSchema {
  const notes = [`${column.type} column${isMultiple(column) ? ' (multiple)' : ''}`];
  if (typeof shapeDescription === 'string') notes.push(shapeDescription);
  if (column.settings.required) notes.push(isLocalized(column) ? 'required in the default locale' : 'required');
  if (column.settings.unique) notes.push(isLocalized(column) ? 'unique per locale' : 'unique in the table');
  if (column.type === 'slug' && column.settings.source) notes.push(`derived from \`${column.settings.source}\` when omitted`);
  const defaultValue = column.settings.defaultValue;
  // In the description, not as `default`: generators (openapi-typescript) make a property with a
  // default mandatory in the generated type, and a create may well omit it.
  if (mode === 'create' && defaultValue !== undefined && defaultValue !== null) notes.push(`default when omitted: ${JSON.stringify(defaultValue)}`);
  return { title: column.label || column.name, description: notes.join('; ') };
}

/**
 * - `create`: the body of a create (absent: default or no value; null: no value);
 * - `update`: the body of an update (absent: kept; null: cleared, refused when required);
 * - `read`: an answered row (no nulls are stored; with `locale`, localized columns are plain).
 */
export type Mode = 'create' | 'update' | 'read';

/** A localized column: `{ "<locale>": value }` (project locales only) or a plain value. */
function localized(column: DocColumn, context: SchemaContext, mode: Mode): JsonSchema {
  const one = value(column, context);
  // On writes, null clears a locale's value, except the default locale's of a required column.
  const requiredLocale = mode !== 'read' && column.settings.required ? context.defaultLocale : null;
  const perLocale = (locale: string) => (mode === 'read' || locale === requiredLocale ? one : nullable(one));
  const byLocale = defined({
    type: 'object',
    properties: Object.fromEntries(context.locales.map((locale) => [locale, perLocale(locale)])),
    additionalProperties: false,
    // A write replaces the whole object (locales left out are dropped), so a required column's
    // object must hold the default locale on update too.
    required: requiredLocale ? [requiredLocale] : undefined,
    description: `By locale (${context.locales.join(', ')}); the default locale is ${context.defaultLocale}`,
  });
  const plain = { ...one, description: mode === 'read' ? 'The value in the requested `locale`' : `The value in the default locale (${context.defaultLocale})` };
  return { anyOf: mode === 'read' ? [byLocale, plain, { type: 'null' }] : [byLocale, plain] };
}

/** The schema of one column's entry in `data`. */
export function columnSchema(column: DocColumn, context: SchemaContext, mode: Mode, partial = false): JsonSchema {
  const shape = isLocalized(column) ? localized(column, context, mode) : value(column, context, mode, partial);
  // A required column refuses null (422); any other may be sent as null to hold no value.
  const writable = mode !== 'read' && !column.settings.required && column.type !== 'json' ? nullable(shape) : shape;
  return { ...writable, ...annotations(column, mode, writable.description) };
}

/** Columns a create must name: required ones that get no default and are not derived. */
export function requiredOnCreate(column: DocColumn): boolean {
  const s = column.settings;
  if (!s.required) return false;
  if (s.defaultValue !== undefined && s.defaultValue !== null) return false;
  return !(column.type === 'slug' && s.source);
}

/** The `data` object of a table in one mode; `partial` drops `required` (list items with `fields`). */
export function dataSchema(columns: DocColumn[], context: SchemaContext, mode: Mode, partial = false): JsonSchema {
  const required =
    partial || mode === 'update' ? [] : columns.filter((c) => (mode === 'create' ? requiredOnCreate(c) : c.settings.required)).map((c) => c.name);
  return defined({
    type: 'object',
    properties: Object.fromEntries(columns.map((c) => [c.name, columnSchema(c, context, mode, partial)])),
    required: required.length > 0 ? required : undefined,
    // Unknown columns are refused (422) and never answered.
    additionalProperties: false,
  });
}
