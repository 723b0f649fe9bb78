/**
 * What a log line may carry. Errors from the database driver hold their client (connection
 * parameters, type tables, socket state): pino's default serializer wrote all of it, about 3.7 KB
 * a line. Errors are logged as a fixed set of fields instead, secrets in URLs are masked, and no
 * line grows past MAX_LINE_BYTES.
 */
export const MAX_LINE_BYTES = 2048;

const STACK_LINES = 12;
const TEXT_CHARS = 1000;
/** The string fields of a PostgreSQL error (pg's DatabaseError) worth a log line. */
const DATABASE_FIELDS = ['severity', 'detail', 'hint', 'table', 'column', 'constraint', 'routine'] as const;

/** `postgres://user:secret@host` → `postgres://user:***@host`; `password=secret` → `password=***`. */
export function maskPasswords(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]*:)[^@\s/]+@/gi, '$1***@')
    .replace(/(password\s*=\s*)('[^']*'|[^\s&;]+)/gi, '$1***');
}

/** A character as a URL may spell it: itself, or percent-encoded once or twice (`%74`, `%2574`). */
const spelt = (c: string) => `(?:${c === '_' ? '_' : `[${c}]`}|%(?:25)?${c.charCodeAt(0).toString(16)})`;
/** A base62 character, or one percent-encoded once or twice. */
const BASE62_SPELT = '(?:[A-Za-z0-9]|%(?:25)?(?:3[0-9]|4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a]))';
/** An API key (`tak_`) or account token (`tat_`) of 43 base62 characters, however spelt. */
const CREDENTIAL = new RegExp(`${spelt('t')}${spelt('a')}(?:[kt]|%(?:25)?(?:6b|74))${spelt('_')}${BASE62_SPELT}{43}`, 'gi');
/** `access_token=<value>` (name spelt in any way) up to the next separator of a URL or log line. */
const ACCESS_TOKEN = new RegExp(`(${[...'access_token'].map(spelt).join('')}(?:=|%(?:25)?3d))[^&#\\s"'\\\\]*`, 'gi');
export const REDACTED = '[redacted]';

/**
 * Takes credentials out of text that is about to be logged (a URL, a header, a whole log line):
 * the value of any `access_token` parameter, and anything shaped like an API key or an account
 * token, plain or percent-encoded, wherever it stands (docs/logs-and-metrics.md).
 */
export function redactCredentials(text: string): string {
  return text.replace(CREDENTIAL, REDACTED).replace(ACCESS_TOKEN, `$1${REDACTED}`);
}

function clip(text: string, chars = TEXT_CHARS): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}…[${text.length - chars} more chars]`;
}

/**
 * An error as type, message, code (a system code such as ECONNREFUSED) or sqlState (a PostgreSQL
 * error), the PostgreSQL fields, the first lines of the stack and its cause; nothing else.
 */
export function serializeError(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clip(maskPasswords(value));
  if (typeof value !== 'object' || value === null || !('message' in value)) return value;
  const error = value as Error & Record<string, unknown>;
  const out: Record<string, unknown> = { type: error.constructor?.name ?? 'Error', message: clip(maskPasswords(String(error.message))) };
  const isDatabaseError = typeof error.severity === 'string' && typeof error.code === 'string';
  if (typeof error.code === 'string' || typeof error.code === 'number') out[isDatabaseError ? 'sqlState' : 'code'] = error.code;
  if (isDatabaseError) {
    for (const field of DATABASE_FIELDS) if (typeof error[field] === 'string') out[field] = clip(maskPasswords(error[field] as string), 200);
  }
  if (typeof error.stack === 'string') out.stack = maskPasswords(error.stack.split('\n').slice(0, STACK_LINES).join('\n'));
  if (error.cause !== undefined && depth < 2) out.cause = serializeError(error.cause, depth + 1);
  if (Array.isArray(error.errors) && depth < 2) out.errors = error.errors.slice(0, 3).map((e) => serializeError(e, depth + 1));
  return out;
}

function shrink(value: unknown, chars: number, depth = 0): unknown {
  if (typeof value === 'string') return clip(value, chars);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 4) return '[…]';
  if (Array.isArray(value)) return value.slice(0, 10).map((v) => shrink(v, chars, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shrink(v, chars, depth + 1)]));
}

/**
 * pino's streamWrite hook: a JSON line over MAX_LINE_BYTES gets its long strings cut, more and
 * more, until it fits; it stays one valid JSON line and says `truncated: true`.
 */
export function boundLine(line: string): string {
  if (Buffer.byteLength(line) <= MAX_LINE_BYTES) return line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${JSON.stringify({ msg: clip(line, 500), truncated: true })}\n`;
  }
  for (const chars of [400, 120, 40]) {
    const shrunk = `${JSON.stringify({ ...(shrink(record, chars) as object), truncated: true })}\n`;
    if (Buffer.byteLength(shrunk) <= MAX_LINE_BYTES) return shrunk;
  }
  const { level, time, pid, hostname, name, msg } = record;
  return `${JSON.stringify({ level, time, pid, hostname, name, msg: clip(String(msg ?? ''), 200), truncated: true })}\n`;
}
