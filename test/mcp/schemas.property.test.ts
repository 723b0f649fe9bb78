import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { appRouter } from '../../src/trpc/router.js';

/*
 * Every tool's input schema takes what its procedure's zod input takes (docs/mcp.md#tools), on
 * generated inputs: values drawn from the JSON Schema itself (which should pass both), and the
 * same values broken in one place (a required field dropped, a field of another type or out of
 * its bounds), checked by ajv as MCP clients check them (the SDK's client: ajv, draft 7, with
 * formats) and by zod.safeParse as the procedure checks them.
 *
 * What zod checks that JSON Schema cannot say is a known, one-way gap: refinements (`.refine`: a
 * zod issue of code "custom"), and checks made after a transform (`.trim()` before a length
 * check; a file name cleaned of its path, then measured). There the schema may accept what the procedure then refuses with 400 (the
 * agent learns from the error); never the reverse: a schema that refused a valid input would stop
 * an agent from making a call the API allows.
 */

// The OpenAPI document is built as the server builds it, in case building it changed a schema.
buildOpenApiDocument(appRouter);
const specs = toolsOf(appRouter);
const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { inputs: z.ZodType[] } }> } })._def.procedures;

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, validateFormats: true, allErrors: true }));

type Schema = Record<string, any>;

/** A value that fits `schema` (the subset of JSON Schema zod writes). */
function arbitraryOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => arbitraryOf(s, depth)));
  if (Array.isArray(schema.type)) return fc.oneof(...(schema.type as string[]).map((type) => arbitraryOf({ ...schema, type }, depth)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1e6, -1e6), max: Math.min(schema.maximum ?? 1e6, 1e6) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringOf(schema);
    case 'array': {
      const items = schema.items ? arbitraryOf(schema.items, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'object':
      return objectOf(schema, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'email') return fc.emailAddress({ size: 'small' });
  if (schema.pattern) {
    const within = (s: string) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity);
    return fc.stringMatching(new RegExp(schema.pattern as string)).filter(within);
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Infinity;
  // Every ASCII character, control and space ones included; and the shapes plain strings often
  // stand for here (a URL, an id, a key), which refinements the schema cannot say look for.
  // (Each only where it always fits the bounds: a filter that rarely passes would never end.)
  const fits = (shortest: number, longest: number) => minLength <= shortest && maxLength >= longest;
  const shapes = [
    { weight: 3, arbitrary: fc.string({ unit: 'binary-ascii', minLength, maxLength: Math.min(maxLength, minLength + 24) }) },
    ...(fits(12, 2048) ? [{ weight: 1, arbitrary: fc.webUrl({ size: 'small' }).filter((url) => url.length <= maxLength) }] : []),
    ...(fits(36, 36) ? [{ weight: 1, arbitrary: fc.uuid() }] : []),
    ...(fits(1, 13) ? [{ weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/) }] : []),
  ];
  return fc.oneof(...shapes);
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, arbitraryOf(value, depth + 1)])),
    { requiredKeys: required.filter((key) => key in properties) },
  );
  if (schema.additionalProperties === undefined || schema.additionalProperties === false || depth > 2) return known;
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !(key in properties) && key !== '__proto__'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }));
}

/** The value broken in one place: a required field dropped, a field replaced by another type or out of its bounds. */
function broken(schema: Schema): fc.Arbitrary<unknown> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const valid = arbitraryOf(schema) as fc.Arbitrary<Record<string, unknown>>;
  const wrong = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 4 }), fc.constant([]), fc.constant({}));
  const options: fc.Arbitrary<unknown>[] = [wrong];
  const required = (schema.required ?? []) as string[];
  if (required.length > 0) options.push(fc.tuple(valid, fc.constantFrom(...required)).map(([value, key]) => ({ ...value, [key]: undefined })));
  if (properties.length > 0) {
    const names = properties.map(([key]) => key);
    options.push(fc.tuple(valid, fc.constantFrom(...names), wrong).map(([value, key, bad]) => ({ ...value, [key]: bad })));
    options.push(fc.tuple(valid, fc.constantFrom(...properties)).map(([value, [key, prop]]) => ({ ...value, [key]: outOfBounds(prop) })));
  }
  return fc.oneof(...options).map((value) => JSON.parse(JSON.stringify(value ?? null)) as unknown);
}

/** A value just past one of the bounds a property declares (or of another type when it has none). */
function outOfBounds(prop: Schema): unknown {
  if (prop.maxLength !== undefined) return 'x'.repeat(prop.maxLength + 1);
  if (prop.minLength !== undefined && prop.minLength > 0) return '';
  if (prop.maximum !== undefined && prop.maximum < 1e15) return prop.maximum + 1;
  if (prop.minimum !== undefined && prop.minimum > -1e15) return prop.minimum - 1;
  if (prop.type === 'integer') return 1.5;
  if (prop.enum) return 'NOT_ONE_OF_THEM';
  return prop.type === 'string' ? 12 : 'twelve';
}

type Def = { type: string; innerType?: z.core.$ZodType; shape?: Record<string, z.core.$ZodType> };
const defOf = (schema: z.core.$ZodType | undefined) => (schema as unknown as { _zod: { def: Def } } | undefined)?._zod.def;

/** Whether the input's field is transformed before it is checked (a file name cleaned, then measured). */
function transformedField(input: z.core.$ZodType, field: PropertyKey | undefined): boolean {
  let def = defOf(defOf(input)?.shape?.[String(field)]);
  while (def && ['optional', 'nullable', 'default'].includes(def.type)) def = defOf(def.innerType);
  return def?.type === 'pipe';
}

/** Whether zod's refusal of a value the schema takes is one of the known gaps (see the top). */
function knownGap(input: z.core.$ZodType, value: unknown, issues: z.core.$ZodIssue[]): boolean {
  return issues.every((issue) => {
    if (issue.code === 'custom' || transformedField(input, issue.path[0])) return true;
    const at = issue.path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey], value);
    return typeof at === 'string' && at.trim() !== at;
  });
}

describe('tool input schemas', () => {
  it('cover every procedure that takes an input', () => {
    expect(specs.length).toBeGreaterThan(60);
  });

  it.each(specs.map((spec) => [spec.path, spec] as const))('%s: the JSON Schema and the zod input agree', (path, spec) => {
    const schema = spec.tool.inputSchema as Schema;
    const validate = ajv.compile(schema);
    const zodInput = procedures[path]._def.inputs[0];
    const check = (value: unknown) => {
      const byAjv = validate(value);
      const byZod = zodInput.safeParse(value);
      if (byZod.success) expect(byAjv, `the schema refuses an input the procedure takes: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`).toBe(true);
      else if (byAjv) expect(knownGap(zodInput, value, byZod.error.issues), `the schema takes an input the procedure refuses: ${JSON.stringify(value)} ${JSON.stringify(byZod.error.issues)}`).toBe(true);
      return byZod.success;
    };
    let accepted = 0;
    fc.assert(
      fc.property(arbitraryOf(schema).map((v) => JSON.parse(JSON.stringify(v)) as unknown), (value) => {
        if (check(value)) accepted++;
      }),
      { numRuns: 60, seed: 20261128 },
    );
    // Values drawn from the schema are, for the most part, inputs the procedure takes.
    expect(accepted, 'valid inputs generated').toBeGreaterThan(0);
    fc.assert(fc.property(broken(schema), (value) => void check(value)), { numRuns: 60, seed: 20261128 });
  });
});
