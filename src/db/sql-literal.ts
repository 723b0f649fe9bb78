import pg from 'pg';

/**
 * A value as an SQL literal, for the few statements that take no parameters (COPY): the text
 * the driver would have sent as the parameter, quoted by `pg`'s own escaping (libpq's rules: a
 * quote doubled, and an E'' string with doubled backslashes when the text holds one). The
 * caller casts it (`'...'::float8`), as it would cast a `$n`. Arrays become PostgreSQL array
 * text with every element quoted. Values of any other kind are refused rather than guessed.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map(arrayElement).join(',')}}`);
  return pg.escapeLiteral(scalarText(value));
}

function scalarText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`sqlLiteral: ${value} has no SQL literal`);
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      if (value instanceof Date) return value.toISOString();
      throw new TypeError(`sqlLiteral: a ${typeof value} has no SQL literal here`);
  }
}

/** An array element: NULL, or quoted with `"` and `\` escaped (so commas, braces and spaces stay inside). */
const arrayElement = (value: unknown): string =>
  value === null || value === undefined ? 'NULL' : `"${scalarText(value).replace(/["\\]/g, (c) => `\\${c}`)}"`;
