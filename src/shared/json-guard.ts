/**
 * Input that is valid JSON (or a valid query string) but cannot be stored faithfully, found
 * before it reaches PostgreSQL or a recursive serialiser:
 * - a NUL character: text and jsonb refuse it; as a bind parameter it even broke the protocol
 *   ("invalid message format"), which was answered 503 and left the ORM's pool unable to close;
 * - an unpaired UTF-16 surrogate (`"\ud800"`): jsonb refuses it (500 before this guard);
 * - a number literal beyond the double range (`1e400`): JSON.parse makes it Infinity, which
 *   JSON.stringify silently turned into null;
 * - nesting deeper than MAX_JSON_DEPTH: tRPC's HTTP adapter re-serialises the parsed body
 *   recursively and overflowed the stack at ~10,000 levels (a 500), and jsonb has a depth limit.
 */
export const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  /** Where, as `data.title` or `tags.2`; empty for the value itself. */
  path: string;
  reason: string;
}

/** Why a string cannot be stored, or null. */
export function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contains a NUL character';
  if (!value.isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
  return null;
}

/** A path fit for an error message: no control characters, well-formed, not too long. */
function printable(path: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = path.replace(/[\u0000-\u001f\u007f]/g, '?').toWellFormed();
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The first value or key of `value` that cannot be stored (see above), or null. Iterative, so
 * that a hostile nesting depth cannot overflow the stack here either.
 */
export function findJsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonProblem | null {
  const pending: [unknown, string, number][] = [[value, '', 0]];
  while (pending.length > 0) {
    const [current, path, depth] = pending.pop()!;
    if (typeof current === 'string') {
      const reason = stringProblem(current);
      if (reason) return { path: printable(path), reason };
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return { path: printable(path), reason: 'is a number beyond the representable range' };
    } else if (typeof current === 'object' && current !== null) {
      if (depth >= maxDepth) return { path: printable(path), reason: `nests deeper than ${maxDepth} levels` };
      if (Array.isArray(current)) {
        for (let i = current.length - 1; i >= 0; i--) pending.push([current[i], join(path, String(i)), depth + 1]);
        continue;
      }
      // Object.entries includes an own `__proto__` key (JSON.parse creates one).
      for (const [key, item] of Object.entries(current)) {
        const reason = stringProblem(key);
        if (reason) return { path: printable(join(path, key)), reason: `key ${reason}` };
        pending.push([item, join(path, key), depth + 1]);
      }
    }
  }
  return null;
}

/** `settings.pattern: contains a NUL character`, for an error message. */
export const describeJsonProblem = (problem: JsonProblem): string =>
  problem.path ? `${problem.path}: ${problem.reason}` : problem.reason;
