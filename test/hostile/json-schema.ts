import type { JsonType } from './arbitraries.js';

/** Just enough JSON Schema reading to know which JSON types an OpenAPI body property accepts. */

export interface Schema {
  $ref?: string;
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> }; parameters?: { name: string; in: string }[] }>>;
  components?: { schemas?: Record<string, Schema> };
}

const ALL: JsonType[] = ['string', 'number', 'boolean', 'null', 'array', 'object'];

const typeOfValue = (value: unknown): JsonType =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as JsonType);

/** The JSON types `schema` accepts (every type when it does not say). */
export function acceptedTypes(schema: Schema, doc: OpenApiDocument): Set<JsonType> {
  if (schema.$ref) return acceptedTypes(doc.components?.schemas?.[schema.$ref.split('/').pop()!] ?? {}, doc);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return new Set(union.flatMap((s) => [...acceptedTypes(s, doc)]));
  if (schema.allOf?.length) return acceptedTypes(schema.allOf[0], doc);
  if ('const' in schema) return new Set([typeOfValue(schema.const)]);
  if (schema.enum) return new Set(schema.enum.map(typeOfValue));
  if (schema.type === undefined) return new Set(ALL);
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).map((t) => (t === 'integer' ? 'number' : t) as JsonType);
  if (schema.nullable) types.push('null');
  return new Set(types);
}

export interface BodyField {
  method: string;
  path: string;
  field: string;
  accepted: JsonType[];
}

/** Every top-level property of every JSON request body that does not accept every JSON type. */
export function typedBodyFields(doc: OpenApiDocument): BodyField[] {
  const fields: BodyField[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      let schema = operation.requestBody?.content?.['application/json']?.schema;
      if (schema?.$ref) schema = doc.components?.schemas?.[schema.$ref.split('/').pop()!];
      for (const [field, property] of Object.entries(schema?.properties ?? {})) {
        const accepted = [...acceptedTypes(property, doc)];
        if (accepted.length < ALL.length) fields.push({ method: method.toUpperCase(), path, field, accepted });
      }
    }
  }
  return fields;
}
