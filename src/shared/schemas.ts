import { z } from 'zod';

/** Wire timestamps: ISO-8601 in UTC (docs/concepts.md#conventions). */
export const isoDate = z.string().describe('ISO-8601 timestamp in UTC');
export const iso = (d: Date): string => d.toISOString();
export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export const uuid = z.uuid();

/** A path identifier. Validated by the access layer (unknown → 404), so any string passes here. */
export const pathId = (description: string) => z.string().describe(description);

/** A person's display name or a resource name. */
export const nameString = z.string().trim().min(1).max(200);

/**
 * Body booleans. trpc-to-openapi switches body schemas to coercing mode in place, which turns
 * `"false"` into `true`; a union of literals is not coercible, so JSON types stay strict.
 */
export const jsonBoolean = z.union([z.literal(true), z.literal(false)]);

/** Lower-cased e-mail address. */
export const emailString = z.email().max(320).transform((v) => v.toLowerCase());

/** A JSON object: not null, not an array. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const { $schema: _dialect, ...objectJsonSchema } = z.toJSONSchema(z.record(z.string(), z.unknown()));

/**
 * A JSON object whose keys are all kept, documented like `z.record(z.string(), z.unknown())`.
 * z.record (and z.object) silently drop an own `__proto__` key, so `{"data":{"__proto__":…}}`
 * was accepted as `{}`; with the raw object the caller's own check refuses it like any other
 * unknown key (contents data: 422; column settings: 400).
 */
export const jsonObject = () =>
  z.custom<Record<string, unknown>>(isPlainObject, { message: 'Invalid input: expected a JSON object' }).meta({ override: objectJsonSchema as never });
