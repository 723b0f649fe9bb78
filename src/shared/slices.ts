import { setImmediate as nextTurn } from 'node:timers/promises';

/*
 * Work over many items on the API's event loop, which also answers every other request: done in
 * one go, the JavaScript of a 1,000-row release (its events built and serialized) held the loop
 * for tens of milliseconds at a time, and each read that arrived meanwhile waited that long
 * (docs/performance.md#releases). Slices let other requests' callbacks run between them.
 */

/** Items per slice: large enough that the turns between slices cost nothing measurable. */
export const SLICE = 250;

/** Lets the event loop run the I/O callbacks that are ready before continuing. */
export const letOthersRun = (): Promise<void> => nextTurn();

/** Between slices of a loop over many items: lets others run before item `index` when a slice ends there. */
export const betweenSlices = async (index: number, size = SLICE): Promise<void> => {
  if (index > 0 && index % size === 0) await letOthersRun();
};

/** `items.map(work)`, `size` items per turn of the event loop (no pause for a single slice). */
export async function mapInSlices<T, R>(items: readonly T[], work: (item: T, index: number) => R, size = SLICE): Promise<R[]> {
  const out: R[] = [];
  for (let from = 0; from < items.length; from += size) {
    if (from > 0) await letOthersRun();
    for (let i = from; i < Math.min(items.length, from + size); i++) out.push(work(items[i], i));
  }
  return out;
}
