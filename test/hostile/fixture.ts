import pg from 'pg';
import { expect } from 'vitest';
import type { CallOptions, CallResult, TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';

/** Shared helpers of the hostile-input suite: bounded requests, error body checks, database snapshots. */

/** Every 4xx code of docs/reliability.md#errors with its status. */
export const DOCUMENTED_4XX: Record<string, number> = {
  INVALID_JSON: 400,
  INVALID_QUERY: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_TRANSITION: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  // Answered by the HTTP layer before routing (docs/reliability.md "Security").
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
};

/** A request must be answered within this time: a hang fails the test instead of the suite. */
export const REQUEST_DEADLINE_MS = 10_000;

/**
 * What gives a fault away in an error message: stack frames, source and package paths, the
 * wording of PostgreSQL and driver errors, JavaScript error names. (Not SQL keywords as such:
 * messages may quote the client's own input, such as an unknown field `1; select …`.)
 */
const LEAK =
  /\bat [\w.<>$]+ \(|\bat (file|node):|node_modules|\.[cm]?[jt]s:\d+|syntax error at or near|violates [\w ]*constraint|duplicate key value|relation "[^"]+" does not exist|column "[^"]+" does not exist|invalid input syntax for|SQLSTATE|DriverException|ExceptionConverter|pg_catalog|\b(TypeError|RangeError|ReferenceError|SyntaxError|URIError)\b|Maximum call stack|Cannot read properties of/i;

/** Fails if an error body looks like it carries a stack trace, SQL or an internal error name. */
export function expectNoLeak(res: CallResult): void {
  if (res.status < 400) return;
  expect(res.text, `error body gives internals away: ${res.text}`).not.toMatch(LEAK);
  expect(res.json?.error?.stack, 'no stack in the error').toBeUndefined();
}

/**
 * The answer to hostile input: 2xx when the input was actually valid, else one of the documented
 * 4xx codes with the exact error body; never a 5xx, never a leak.
 */
export function expectHandled(res: CallResult, context: string): void {
  expect(res.status, `${context}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const code = res.json?.error?.code as string | undefined;
    expect(code && DOCUMENTED_4XX[code], `${context}: undocumented error ${res.status} ${res.text.slice(0, 300)}`).toBe(res.status);
    expectError(res, res.status, code!);
    expectNoLeak(res);
  }
}

/** `t.call` with a deadline: a request that hangs fails with a clear message. */
export async function callWithin(t: TestApi, method: string, path: string, options: CallOptions = {}, ms = REQUEST_DEADLINE_MS): Promise<CallResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${method} ${path.slice(0, 200)} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([t.call(method, path, options), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A raw JSON body sent as is (for text JSON.stringify cannot produce: lone surrogates, 1e400, depth). */
export const rawJson = (raw: string | Buffer, headers: Record<string, string> = {}): CallOptions => ({
  raw,
  headers: { 'content-type': 'application/json', ...headers },
});

/** Tables whose every row can change only through a successful write. */
const VOLATILE = new Set(['rate_bucket', 'mikro_orm_migrations']);

/**
 * A fingerprint of the whole application database: the row count of every table of the public
 * schema, and a checksum of the rows of the tables refused writes would touch. `last_used_at`
 * is left out: reading with a key legitimately updates it.
 */
export async function snapshot(t: TestApi): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: t.db.url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`,
    );
    const checksum = (table: string, row: string) => `select md5(coalesce(string_agg(${row}, '|' order by id), '')) from ${table}`;
    // One statement, one round trip: the hostile tests take many snapshots.
    const parts = [
      ...tables.rows.filter(({ name }) => !VOLATILE.has(name)).map(({ name }) => `select '${name}', (select count(*)::text from "${name}")`),
      `select 'contents:checksum', (${checksum('contents', 'id::text || status || data::text || updated_at::text')})`,
      `select 'content_table:checksum', (${checksum('content_table', 'id::text || key || name || description || default_status')})`,
      `select 'content_column:checksum', (${checksum('content_column', 'id::text || name || type || settings::text')})`,
      `select 'variable:checksum', (${checksum('variable', 'id::text || key || value::text')})`,
    ];
    const rows = await client.query<{ name: string; value: string }>({ text: parts.join(' union all '), rowMode: 'array' } as never);
    return Object.fromEntries((rows.rows as unknown as [string, string][]).map(([name, value]) => [name, value]));
  } finally {
    await client.end();
  }
}

let counter = 0;
/** A fresh lower-case identifier usable as a table key or column name. */
export const uniq = (label = 'h') => `${label}_${Date.now().toString(36)}_${++counter}`;
