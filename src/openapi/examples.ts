/**
 * Example values built from JSON schemas, so that every request body and response of the
 * documents carries an example without one being written per operation. A schema's own
 * `examples`/`example`/`default`/`const`/`enum` wins; otherwise the property name and the
 * format choose a plausible value. The linter checks every example against its schema.
 */

type Schema = Record<string, unknown>;
type Resolve = (ref: string) => Schema | undefined;
/** Property name → example value, for one resource group (see HINTS_BY_TAG). */
export type Hints = Record<string, unknown>;

export const EXAMPLE_ID = '0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a';
export const EXAMPLE_TIME = '2026-11-22T10:00:00.000Z';

/** Values for common property names, used when they satisfy the schema's pattern and bounds. */
const BY_NAME: Record<string, unknown> = {
  email: 'ada@example.com',
  name: 'Acme',
  label: 'Title',
  key: 'articles',
  slug: 'hello-world',
  locale: 'en',
  defaultLocale: 'en',
  locales: ['en', 'fr'],
  url: 'https://hooks.example.com/tabula',
  description: 'What it is for',
  mimeType: 'image/png',
  sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  prefix: 'tak_3fZ8kQ2m',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  accessToken: 'tat_3fZ8kQ2mV7xYpL4nR6tW9bC1dE5gH8jK0mN2qS4uX7z',
  method: 'GET',
  path: '/v1/0193b5c4-7d1e-7c3a-9f2b-5e8a1d2c3b4a/tables',
  ip: '203.0.113.7',
  userAgent: 'curl/8.5.0',
  requestId: 'b7c6a1e2-3d4f-4a5b-8c9d-0e1f2a3b4c5d',
  message: 'Hello',
  error: null,
  value: 'Hello',
  type: 'text',
  allowedHosts: ['www.example.com', '*.example.com'],
  events: ['contents.created', 'contents.updated'],
};

/** Where a name means something else in one resource group (a column's `name`, a variable's `key`). */
const HINTS_BY_TAG: Record<string, Hints> = {
  Projects: { name: 'Website' },
  'API Keys': { name: 'Website (read)', key: 'tak_3fZ8kQ2mV7xYpL4nR6tW9bC1dE5gH8jK0mN2qS4uX7z' },
  Tables: { name: 'Articles' },
  Columns: { name: 'title', settings: { required: true, maxText: 120 } },
  Categories: { name: 'News', slug: 'news' },
  Variables: { key: 'SITE_NAME', value: 'Acme' },
  Translations: { key: 'home.title', value: 'Welcome' },
  Files: { name: 'logo.png' },
  Webhooks: { name: 'Rebuild the site' },
};

export const hintsOf = (tags: string[] | undefined): Hints => Object.assign({}, ...(tags ?? []).map((tag) => HINTS_BY_TAG[tag] ?? {}));

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function fits(schema: Schema, value: unknown): boolean {
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return false;
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) return false;
    return typesOf(schema).includes('string') || typesOf(schema).length === 0;
  }
  if (Array.isArray(value)) return typesOf(schema).includes('array');
  if (value === null) return typesOf(schema).includes('null');
  return true;
}

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];

/** A string for the schema, or undefined when no guess satisfies its pattern. */
function stringFor(schema: Schema, name: string | undefined): string | undefined {
  const guess = guessString(schema, name);
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const value = [...guess].slice(0, maxLength).join('');
  return typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value) ? undefined : value;
}

function guessString(schema: Schema, name: string | undefined): string {
  switch (schema.format) {
    case 'uuid':
      return EXAMPLE_ID;
    case 'date-time':
      return EXAMPLE_TIME;
    case 'date':
      return EXAMPLE_TIME.slice(0, 10);
    case 'email':
      return 'ada@example.com';
    case 'uri':
      return 'https://www.example.com/';
    case 'binary':
      return '';
  }
  if (name && /(^id$|Ids?$)/.test(name)) return EXAMPLE_ID;
  if (name && /At$/.test(name)) return EXAMPLE_TIME;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  return 'text'.padEnd(minLength, 'x');
}

/** 1 when the bounds allow it (zod writes the safe-integer range as bounds of every int). */
function numberFor(schema: Schema): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : -Infinity;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  return min <= 1 && 1 <= max ? 1 : min > 1 ? min : max;
}

/**
 * An example value of `schema` (`name`: the property it belongs to, for a better guess), or
 * undefined when none can be made (a string pattern no guess satisfies): optional properties
 * are then left out, and an object missing a required one has no example at all.
 */
export function exampleOf(schema: unknown, resolve: Resolve, name?: string, depth = 0, hints: Hints = {}): unknown {
  if (!isSchema(schema) || depth > 12) return undefined;
  if (typeof schema.$ref === 'string') return exampleOf(resolve(schema.$ref), resolve, name, depth + 1, hints);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['example', 'default', 'const'] as const) if (key in schema) return schema[key];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? null;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    // Non-null branches first: an example should show a value.
    const ordered = [...branches.filter((b) => !(isSchema(b) && b.type === 'null')), ...branches.filter((b) => isSchema(b) && b.type === 'null')];
    for (const branch of ordered) {
      const value = exampleOf(branch, resolve, name, depth + 1, hints);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part) => exampleOf(part, resolve, name, depth + 1, hints)));
  }
  const named = name === undefined ? undefined : Object.hasOwn(hints, name) ? hints[name] : Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined;
  if (named !== undefined && fits(schema, named)) return named;
  const types = typesOf(schema).filter((t) => t !== 'null');
  switch (types[0] ?? (isSchema(schema.properties) ? 'object' : undefined)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      for (const [key, child] of Object.entries(isSchema(schema.properties) ? schema.properties : {})) {
        const value = exampleOf(child, resolve, key, depth + 1, hints);
        if (value !== undefined) out[key] = value;
        else if (required.includes(key)) return undefined;
      }
      return out;
    }
    case 'array': {
      const item = exampleOf(schema.items, resolve, name, depth + 1, hints);
      return item === undefined ? [] : [item];
    }
    case 'string':
      return stringFor(schema, name);
    case 'integer':
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      // `{}` (any JSON value) or an unknown shape.
      return typesOf(schema).includes('null') ? null : {};
  }
}

/** A resolver of local `#/components/...` references within `doc`. */
export function localResolver(doc: unknown): Resolve {
  return (ref) => {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = doc;
    for (const part of ref.slice(2).split('/')) node = isSchema(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    return isSchema(node) ? node : undefined;
  };
}

/** Gives the `application/json` entry of `content` an example built from its schema, if it has none. */
export function addJsonExample(content: Record<string, { schema?: unknown; example?: unknown }> | undefined, resolve: Resolve, hints: Hints = {}): void {
  const json = content?.['application/json'];
  if (!json?.schema || json.example !== undefined) return;
  const example = exampleOf(json.schema, resolve, undefined, 0, hints);
  if (example !== undefined) json.example = example;
}
