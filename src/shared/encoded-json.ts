/*
 * Answers whose bulk is already JSON. A cached list page is answered again and again: encoding
 * its up to 1,000 items with JSON.stringify on every answer was the largest share of a large
 * page's CPU (docs/performance.md#single-reads-and-large-pages). The page keeps its items
 * encoded once, as UTF-8 bytes, beside the items themselves; the answer is then the other fields
 * encoded around a copy of those bytes, byte for byte what JSON.stringify would write.
 */

/** Non-enumerable: JSON.stringify (the `/trpc` face) and equality checks in tests do not see it. */
const ENCODED = Symbol('encoded field');
/** The same, for a value encoded whole (an MCP tool result, the tool list). */
const ENCODED_WHOLE = Symbol('encoded value');

interface EncodedField {
  field: string;
  /** The value the bytes encode: any other value in the field is encoded anew. */
  of: unknown;
  /** Encodes it, when an answer is written (never for the `/trpc` face, which encodes the whole value). */
  bytes: () => Buffer;
}

/** `value` with `bytes()` as the JSON encoding of `value[field]` (which must be that exact JSON). */
export function withEncodedField<T extends object>(value: T, field: keyof T & string, bytes: () => Buffer): T {
  Object.defineProperty(value, ENCODED, { value: { field, of: value[field], bytes } satisfies EncodedField, enumerable: false });
  return value;
}

/**
 * `value` with `bytes()` as its whole JSON encoding (which must be that exact JSON): for values
 * made once and answered as they are, never changed afterwards.
 */
export function withEncoding<T extends object>(value: T, bytes: () => Buffer[]): T {
  Object.defineProperty(value, ENCODED_WHOLE, { value: bytes, enumerable: false });
  return value;
}

/** JSON.stringify's text of `items`, as UTF-8 bytes, once per array (the arrays of cached pages are never changed). */
const encodedArrays = new WeakMap<readonly unknown[], Buffer>();
export function encodedArray(items: readonly unknown[]): Buffer {
  let bytes = encodedArrays.get(items);
  if (!bytes) encodedArrays.set(items, (bytes = Buffer.from(JSON.stringify(items))));
  return bytes;
}

/**
 * `JSON.stringify(value)`: as a string, or as UTF-8 bytes in parts when a field of `value` was
 * encoded beforehand (withEncodedField). The parts are written as they are: joining them would
 * copy the encoded field and allocate its size outside the heap on every answer, which also
 * brings V8's full collections sooner. Empty for what JSON.stringify cannot encode (undefined).
 */
export function toJsonBody(value: unknown): string | Buffer[] {
  const whole = value !== null && typeof value === 'object' ? (value as { [ENCODED_WHOLE]?: () => Buffer[] })[ENCODED_WHOLE] : undefined;
  if (whole) return whole();
  const encoded = value !== null && typeof value === 'object' ? (value as { [ENCODED]?: EncodedField })[ENCODED] : undefined;
  if (!encoded || (value as Record<string, unknown>)[encoded.field] !== encoded.of || 'toJSON' in (value as object)) return JSON.stringify(value) ?? '';
  const parts: Buffer[] = [];
  let text = '{';
  let first = true;
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const json = key === encoded.field ? null : JSON.stringify(field);
    if (json === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (json === null) {
      parts.push(Buffer.from(text), encoded.bytes());
      text = '';
    } else {
      text += json;
    }
  }
  parts.push(Buffer.from(`${text}}`));
  return parts;
}

/** The escaped text of each encoded part, by part: a cached page's items are escaped once. */
const escapedParts = new WeakMap<Buffer, Buffer>();

/**
 * The JSON text that `parts` encode (toJsonBody) as the inside of a JSON string, `"` excluded:
 * what JSON.stringify writes for that text as a string value. JSON escapes character by
 * character, and each part is whole UTF-8 text, so the parts are escaped one by one, and a part
 * encoded beforehand (a cached page's items) is escaped once for all its answers.
 */
export function jsonStringParts(parts: readonly Buffer[]): Buffer[] {
  return parts.map((part) => {
    let escaped = escapedParts.get(part);
    if (!escaped) escapedParts.set(part, (escaped = Buffer.from(JSON.stringify(part.toString()).slice(1, -1))));
    return escaped;
  });
}
