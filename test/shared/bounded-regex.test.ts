import { describe, expect, it } from 'vitest';
import { matchesPattern, PATTERN_TIMEOUT_MS } from '../../src/shared/bounded-regex.js';

/**
 * Column patterns run with a time limit (src/shared/bounded-regex.ts). The limit is on the
 * pattern's work, not on how long the machine took: on a loaded machine the process may not run
 * at all for longer than the limit in the middle of a match, and `KIT-0001` against
 * `[A-Z]{3}-[0-9]{4}` was then refused as "could not be checked against the pattern in time"
 * (a 422 of the docs examples under load).
 */

/** Runs `work` while the next `times` matches stall once, without using the CPU, for four times the limit: the process is not scheduled. */
function withStalledMatches<T>(times: number, work: () => T): T {
  const exec = RegExp.prototype.exec;
  let stalls = times;
  const asleep = new Int32Array(new SharedArrayBuffer(4));
  RegExp.prototype.exec = function stalled(this: RegExp, input: string) {
    if (stalls-- > 0) Atomics.wait(asleep, 0, 0, 4 * PATTERN_TIMEOUT_MS);
    return exec.call(this, input);
  };
  try {
    return work();
  } finally {
    RegExp.prototype.exec = exec;
  }
}

describe('matchesPattern', () => {
  it('decides a simple pattern even when the process did not run for longer than the limit during the match', () => {
    expect(withStalledMatches(1, () => matchesPattern('[A-Z]{3}-[0-9]{4}', 'KIT-0001'))).toBe(true);
    expect(withStalledMatches(3, () => matchesPattern('[A-Z]{3}-[0-9]{4}', 'kit-0001'))).toBe(false);
  });

  it('still stops a pattern that backtracks catastrophically', () => {
    expect(matchesPattern('(a+)+', `${'a'.repeat(40)}!`)).toBe('timeout');
    expect(matchesPattern('(a+)+', 'aaaa')).toBe(true);
  });
});
