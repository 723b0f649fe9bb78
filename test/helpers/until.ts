/**
 * The one way tests wait: poll a real condition until it holds, or fail with a message that
 * says what never happened. Tests never wait on the clock alone; when time itself is what is
 * tested (a TTL, a retry delay), they wait here on the effect that time must bring.
 */

/** A value `until` accepts as "the condition holds". */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Calls `check` every `intervalMs` until it returns a truthy value (returned), or throws after `ms`. */
export async function until<T>(check: () => Promise<T> | T, ms = 10_000, what = 'condition', intervalMs = 25): Promise<Truthy<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves once this machine's clock reads later than the stored instant `iso` (the server runs
 * on the same clock), so that the next write is stamped strictly after it.
 */
export const clockPast = (iso: string) => until(() => Date.now() > Date.parse(iso), 2_000, `the clock to pass ${iso}`, 1);

/**
 * For the few tests where time passing is itself what is tested ("after Retry-After seconds the
 * key works again"): resolves once the clock reaches `epochMs`, the deadline the test then checks
 * its condition against.
 */
export const clockReaches = (epochMs: number, what: string) =>
  until(() => Date.now() >= epochMs, Math.max(0, epochMs - Date.now()) + 1_000, what, 5);
