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
