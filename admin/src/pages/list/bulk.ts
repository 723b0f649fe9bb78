/*
 * Bulk actions on the selected rows of a contents list (docs/console.md#bulk-actions), each row's
 * outcome kept for the result list. A status change (publish, unpublish, archive) goes CHUNK rows
 * a request to `contents.setStatus`, one transaction each; a delete or an addition to a release
 * is one call per row through the typed client, at most CONCURRENCY at a time (the client batches
 * the calls made together into one request).
 */

export const CONCURRENCY = 24;
/** Rows per status request: four requests for 1,000 rows, so that the progress moves. */
export const CHUNK = 250;

export type BulkAction = 'publish' | 'unpublish' | 'archive' | 'delete' | 'release';

export interface BulkOutcome {
  id: string;
  ok: boolean;
  message: string;
}

export const ACTION_NAMES: Record<BulkAction, string> = {
  publish: 'Publish',
  unpublish: 'Unpublish',
  archive: 'Archive',
  delete: 'Delete',
  release: 'Add to release',
};

interface RowState {
  id: string;
  status?: string | null;
}

/** What the action will do to each selected row, counted, in words (the confirm dialog's summary). */
export function summarize(action: BulkAction, rows: RowState[], unknown: number): string[] {
  const by = (status: string) => rows.filter((r) => r.status === status).length;
  const n = rows.length + unknown;
  const lines: string[] = [];
  const rowsWord = (k: number) => (k === 1 ? '1 row' : `${k} rows`);
  if (action === 'publish') {
    lines.push(`${rowsWord(n)} will be published (live for read keys at once).`);
    if (by('PUBLISHED')) lines.push(`${rowsWord(by('PUBLISHED'))} already published: saved again as published.`);
    if (by('SCHEDULED')) lines.push(`${rowsWord(by('SCHEDULED'))} scheduled: published now instead.`);
    if (by('ARCHIVED')) lines.push(`${rowsWord(by('ARCHIVED'))} archived on this page: refused (an archived row becomes a draft first).`);
  } else if (action === 'unpublish') {
    lines.push(`${rowsWord(n)} will become drafts (gone from read keys).`);
    if (by('DRAFT')) lines.push(`${rowsWord(by('DRAFT'))} already drafts.`);
  } else if (action === 'archive') {
    lines.push(`${rowsWord(n)} will be archived (gone from read keys).`);
  } else if (action === 'delete') {
    lines.push(`${rowsWord(n)} and their revisions will be deleted. This cannot be undone.`);
  } else {
    lines.push(`${rowsWord(n)} will be added to the release, to be published with it.`);
    lines.push('A row already in another open release is refused (shown per row).');
  }
  return lines;
}

/** The status each status action gives; the other actions are row by row. */
export const STATUS_OF: Record<BulkAction, 'PUBLISHED' | 'DRAFT' | 'ARCHIVED' | null> = { publish: 'PUBLISHED', unpublish: 'DRAFT', archive: 'ARCHIVED', delete: null, release: null };

/**
 * Runs `work` on the ids CHUNK at a time, one chunk after the other; `onProgress` after each. A
 * chunk that fails whole (the network, a 403) fails each of its rows with that error.
 */
export async function runInChunks(
  ids: string[],
  work: (ids: string[]) => Promise<{ id: string; ok: boolean; message?: string }[]>,
  onProgress: (done: number) => void,
  describe: (error: unknown) => string,
): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = [];
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    try {
      const results = await work(chunk);
      outcomes.push(...results.map((r) => ({ id: r.id, ok: r.ok, message: r.ok ? 'Done' : (r.message ?? 'Refused') })));
    } catch (error) {
      const message = describe(error);
      outcomes.push(...chunk.map((id) => ({ id, ok: false, message })));
    }
    onProgress(outcomes.length);
  }
  return outcomes;
}

/** Runs `work` on every id, at most `limit` at once; `onProgress` after each. */
export async function runBounded(
  ids: string[],
  work: (id: string) => Promise<unknown>,
  onProgress: (done: number) => void,
  describe: (error: unknown) => string,
  limit = CONCURRENCY,
): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = new Array(ids.length);
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < ids.length) {
      const index = next++;
      const id = ids[index];
      try {
        await work(id);
        outcomes[index] = { id, ok: true, message: 'Done' };
      } catch (error) {
        outcomes[index] = { id, ok: false, message: describe(error) };
      }
      onProgress(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, ids.length) }, lane));
  return outcomes;
}
