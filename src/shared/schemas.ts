import { z } from 'zod';

/** Wire timestamps: ISO-8601 in UTC (SPEC §2). */
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
