import { TabulaError } from 'tabula/client';

/** A failed call as people read it: the API's message, with the request id for support. */
export function errorText(error: unknown): string {
  if (error instanceof TabulaError) return error.requestId ? `${error.message} (request ${error.requestId})` : error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * 422 details and 409 conflicts by field: `{ "data.title": "must not be empty" }`. A 409 names its
 * field at the start of its message (`data.sku: this value already exists in another row`).
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof TabulaError)) return {};
  if (error.code === 'CONFLICT') {
    const match = /^([\w.-]+): (.+)$/.exec(error.message);
    return match ? { [match[1]]: match[2] } : {};
  }
  return Object.fromEntries((error.details ?? []).map((detail) => [detail.field, detail.message]));
}
