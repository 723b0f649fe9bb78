import vm from 'node:vm';

/**
 * Column `pattern`s are written by project admins and run against values that any writer sends.
 * One with catastrophic backtracking (`(a+)+`, `(a|a)*`, `(\w+\s?)*` against 40 characters)
 * blocked the event loop, and so every request of every project, for minutes. Matching runs in
 * a vm context with a timeout instead: V8 interrupts a RegExp in the middle of backtracking.
 * The watchdog costs ~0.3 ms per match, paid only by values of columns that have a pattern.
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
  context.pattern = regex;
  context.value = value;
  try {
    return script.runInContext(context, { timeout: PATTERN_TIMEOUT_MS }) === true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw error;
  } finally {
    context.pattern = undefined;
    context.value = undefined;
  }
}
