import vm from 'node:vm';

/**
 * Column `pattern`s are written by project admins and run against values that any writer sends.
 * One with catastrophic backtracking (`(a+)+`, `(a|a)*`, `(\w+\s?)*` against 40 characters)
 * blocked the event loop, and so every request of every project, for minutes. Matching runs in
 * a vm context with a timeout instead: V8 interrupts a RegExp in the middle of backtracking.
 * The watchdog costs ~0.3 ms per match, paid only by values of columns that have a pattern.
 *
 * The watchdog counts wall-clock time, the limit is meant for the pattern's work: on a loaded
 * machine the process may not run for longer than the limit in the middle of a trivial match
 * (`KIT-0001` against `[A-Z]{3}-[0-9]{4}` timed out about once in a thousand matches with ten
 * runnable processes on two cores, 2026-11-27). So a timeout only counts once the process has
 * used the limit's worth of CPU time; before that the match is run again with what is left.
 * The process's CPU time includes its other threads', so the pattern's share can only be
 * smaller: a backtracking pattern is still stopped within the limit of CPU time.
 */
export const PATTERN_TIMEOUT_MS = 50;

const context = vm.createContext(Object.create(null));
const script = new vm.Script('pattern.test(value)');
/** Compiled patterns by source; cleared when full (patterns are few, and cheap to compile). */
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 1000;

/** Whether the whole `value` matches `pattern` (anchored, Unicode); 'timeout' when undecided in time. */
export function matchesPattern(pattern: string, value: string): boolean | 'timeout' {
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = new RegExp(`^(?:${pattern})$`, 'u');
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, regex);
  }
  const start = process.cpuUsage();
  let left = PATTERN_TIMEOUT_MS;
  for (;;) {
    const matched = runWithin(regex, value, Math.ceil(left));
    if (matched !== 'timeout') return matched;
    const used = process.cpuUsage(start);
    left = PATTERN_TIMEOUT_MS - (used.user + used.system) / 1000;
    if (left < 1) return 'timeout';
  }
}

function runWithin(regex: RegExp, value: string, timeoutMs: number): boolean | 'timeout' {
  context.pattern = regex;
  context.value = value;
  try {
    return script.runInContext(context, { timeout: timeoutMs }) === true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw error;
  } finally {
    context.pattern = undefined;
    context.value = undefined;
  }
}
