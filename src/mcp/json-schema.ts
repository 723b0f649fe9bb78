import { z } from 'zod';

/** A JSON Schema object, as MCP carries it in a tool's `inputSchema` and `outputSchema`. */
export type JsonSchema = { [key: string]: unknown };

/**
 * A procedure's zod schema as the JSON Schema a tool declares (docs/mcp.md#tools). Draft 7 and
 * no `$schema`: the dialect every MCP client's validator reads (the SDK's own client compiles it
 * with a draft-07 ajv). `io` picks the side of transforms and defaults: what a caller sends
 * (`input`: a field with a default is optional) or what it gets back (`output`).
 *
 * Schemas the OpenAPI document overrides (`.meta({ override })`: a JSON object kept whole, a
 * list answered without a second parse) are documented by their override here too.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-7',
    override: ({ zodSchema, jsonSchema }) => {
      if (io === 'input') sayStringBooleans(zodSchema, jsonSchema);
      const meta = z.globalRegistry.get(zodSchema) as { override?: unknown } | undefined;
      const replacement = meta?.override;
      delete (jsonSchema as Record<string, unknown>).override;
      if (typeof replacement !== 'object' || replacement === null) return;
      const { description } = jsonSchema;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      Object.assign(jsonSchema, replacement, description === undefined ? {} : { description });
    },
    // The overridden schemas are z.custom, which JSON Schema cannot say: the override above
    // replaces them. z.void() (an answer without a body) becomes `{}`.
    unrepresentable: 'any',
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** The words zod's `z.stringbool()` may take (its defaults); a schema takes some of them. */
const BOOLEAN_WORDS = ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 'y', 'n', 'enabled', 'disabled'];

/**
 * A `z.stringbool()` (a query parameter such as `withCount`) takes a few words only, where JSON
 * Schema would say "any string": its input is the words it takes.
 */
function sayStringBooleans(schema: z.core.$ZodType, json: JsonSchema): void {
  const def = (schema as unknown as { _zod: { def: { type: string; in?: z.core.$ZodType; out?: z.core.$ZodType } } })._zod.def;
  if (def.type !== 'pipe' || !def.in || !def.out) return;
  const side = (part: z.core.$ZodType) => (part as unknown as { _zod: { def: { type: string } } })._zod.def.type;
  if (side(def.in) !== 'string' || side(def.out) !== 'boolean') return;
  json.enum = BOOLEAN_WORDS.filter((word) => z.safeParse(schema, word).success);
}
