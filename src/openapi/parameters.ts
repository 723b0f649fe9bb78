import type { z } from 'zod';

/**
 * Query and path parameters as the generator leaves them lose what the zod schema says about
 * them: it unwraps `.optional()`/`.default()` before converting, and the description and
 * examples live on the wrapper. This puts them back, from the procedure's input schema.
 */

export interface Parameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  schema?: Record<string, unknown>;
  example?: unknown;
}

type AnyZod = z.ZodType;

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch']);

/** The schema under optional/default/... wrappers. */
function unwrap(schema: AnyZod): AnyZod {
  let current = schema;
  while (WRAPPERS.has(current._zod.def.type)) current = (current._zod.def as unknown as { innerType: AnyZod }).innerType;
  return current;
}

/** Description and examples may sit on any wrapper layer; the outermost wins. */
function metaOf(schema: AnyZod): { description?: string; examples?: unknown[] } {
  let current: AnyZod | undefined = schema;
  const found: { description?: string; examples?: unknown[] } = {};
  while (current) {
    const meta = current.meta() as { description?: string; examples?: unknown[] } | undefined;
    found.description ??= meta?.description ?? current.description;
    found.examples ??= meta?.examples;
    current = WRAPPERS.has(current._zod.def.type) ? (current._zod.def as unknown as { innerType: AnyZod }).innerType : undefined;
  }
  return found;
}

/** `z.stringbool()`: text in the query string that reads as a boolean. */
const isStringBool = (schema: AnyZod) => {
  const def = unwrap(schema)._zod.def as { type: string; out?: AnyZod };
  return def.type === 'pipe' && def.out?._zod.def.type === 'boolean';
};

/** Completes the parameters of one operation from its input schema's shape. */
export function completeParameters(parameters: Parameter[], shape: Record<string, AnyZod> | undefined): void {
  for (const parameter of parameters) {
    const field = shape?.[parameter.name];
    if (!field) continue;
    const { description, examples } = metaOf(field);
    if (description) parameter.description ??= description;
    if (examples?.length && parameter.example === undefined) parameter.example = examples[0];
    if (parameter.schema) {
      // The parameter carries the description; a copy in its schema is noise in the docs page.
      delete parameter.schema.description;
      if (isStringBool(field)) parameter.schema = { type: 'string', enum: ['true', 'false'] };
    }
  }
}
