import { TabulaError } from 'tabula/client';
import { fieldErrors } from '../../data/errors.js';

/**
 * A failed schema write by field. Besides 422 details and 409 conflicts (fieldErrors), a table or
 * column write is refused with 400 for a malformed key or name and for settings that do not fit
 * the type (docs/contents.md#tables-and-columns), and that message names its fields: `Invalid request: name: must match …;
 * settings.min: must be a finite number`. Each goes to its field.
 */
export function schemaErrors(error: unknown): Record<string, string> {
  const errors = fieldErrors(error);
  if (error instanceof TabulaError && error.code === 'BAD_REQUEST') {
    const body = error.message.replace(/^Invalid request: /, '');
    for (const part of body.split(/; (?=[\w.]+: )/)) {
      const match = /^([\w.]+): (.+)$/s.exec(part);
      if (match) errors[match[1]] = match[2];
    }
  }
  return errors;
}

/** Whether some of `errors` stand at none of the fields the form shows (then the form says them in a banner). */
export const hasUnplaced = (errors: Record<string, string>, shown: string[]) => Object.keys(errors).length === 0 || Object.keys(errors).some((field) => !shown.includes(field));
