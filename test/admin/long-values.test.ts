import { writeFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, openConsole, screenshot, SCREENSHOTS, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Long values in the console (docs/console.md, "Long values in the list"): a table whose rows have
 * bodies of several KB and a title of 2,000 characters without a space. The list shows each value
 * as a one-line preview of bounded length, so a page of 100 rows stays a page of short rows; the
 * editor of the long-titled row stays as wide as the window. The main thread's long tasks after the
 * list call answers are measured and reported (not asserted).
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let postsId: string;
let smallId: string;
let longTitleId: string;

const ROWS = 300;
/** A preview's length at most: the list's cut (cells.tsx) and its ellipsis. */
const PREVIEW_CHARS = 80;

/** What the page functions below read of the browser (the test is type-checked without the DOM library). */
interface PageGlobals {
  document: { querySelector(selector: string): unknown; querySelectorAll(selector: string): ArrayLike<{ getBoundingClientRect(): { height: number; width: number }; textContent: string | null }>; documentElement: { scrollWidth: number; clientWidth: number } };
  innerWidth: number;
  requestAnimationFrame(callback: () => void): void;
  longTasks: { startTime: number; duration: number }[];
  PerformanceObserver: new (callback: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => { observe(options: object): void };
}

const WORDS = ['harbour', 'tide', 'lantern', 'ferry', 'gull', 'storm', 'pier', 'keel', 'mast', 'anchor', 'current', 'shoal'];
/** About `size` characters of prose with line breaks, different for each row. */
function body(i: number, size: number): string {
  const words: string[] = [];
  let length = 0;
  for (let w = 0; length < size; w++) {
    const word = WORDS[(i * 7 + w * 3) % WORDS.length];
    words.push(w % 40 === 39 ? `${word}.\n\n` : word);
    length += word.length + 1;
  }
  return words.join(' ');
}

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const res = await run.t.call('POST', `/v1/${projectId}${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000 });

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  postsId = (await post('/tables', { key: 'posts', name: 'Posts' })).id;
  for (const column of [
    { name: 'title', label: 'Title', type: 'text' },
    { name: 'body', label: 'Body', type: 'longtext' },
    { name: 'notes', label: 'Notes', type: 'longtext' },
    { name: 'meta', label: 'Meta', type: 'json' },
    { name: 'views', label: 'Views', type: 'integer' },
  ]) {
    await post(`/tables/${postsId}/columns`, column);
  }
  const lines = Array.from({ length: ROWS }, (_, i) =>
    JSON.stringify({ data: { title: `Post ${i} ${body(i, 60)}`, body: body(i, 6000), notes: body(i + 1, 3000), meta: { tags: WORDS, text: body(i, 1500) }, views: i } }),
  );
  const imported = await run.t.call('POST', `/v1/${projectId}/tables/${postsId}/contents/import`, { raw: Buffer.from(lines.join('\n')), headers: { 'content-type': 'application/x-ndjson' } });
  expect(imported.status, imported.text).toBe(200);
  longTitleId = (await post(`/tables/${postsId}/contents`, { data: { title: 'X'.repeat(2000), body: 'Y'.repeat(2000), views: 1 } })).id;

  // The 6-row table measured alongside.
  smallId = (await post('/tables', { key: 'small', name: 'Small' })).id;
  await post(`/tables/${smallId}/columns`, { name: 'title', label: 'Title', type: 'text' });
  await post(`/tables/${smallId}/columns`, { name: 'views', label: 'Views', type: 'integer' });
  for (let i = 0; i < 6; i++) await post(`/tables/${smallId}/contents`, { data: { title: `Short ${i}`, views: i } });

  // Every page records the main thread's long tasks from its start.
  await run.page.context().addInitScript(() => {
    const g = globalThis as unknown as PageGlobals;
    g.longTasks = [];
    new g.PerformanceObserver((list) => g.longTasks.push(...list.getEntries().map((e) => ({ startTime: e.startTime, duration: e.duration })))).observe({ type: 'longtask', buffered: true });
  });
  await signIn(run);
}, BROWSER_TEST_MS * 2);
afterAll(async () => {
  await run?.close();
});

async function settle(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    return new Promise<void>((resolve) => g.requestAnimationFrame(() => g.requestAnimationFrame(resolve)));
  });
  await page.waitForTimeout(1000);
}

/**
 * Opens a list at `size` rows a page and reports, on the page's clock, when the last list call
 * answered, when its rows were in the document, and the long tasks after that answer.
 */
async function measureList(page: Page, tableId: string, size: number, rows: number) {
  await page.goto(`${base}/tables/${tableId}?size=${size}`);
  await poll(() => page.getByRole('rowheader').count()).toBe(rows);
  // Rows shown: the work after them (effects, layout, paint) ends within the next frames; a second
  // is left for the long-task observer to hear of it.
  await settle(page);
  return page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    const calls = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('contents.list')) as unknown as { responseEnd: number; encodedBodySize: number }[];
    const answeredAt = Math.min(...calls.map((call) => call.responseEnd));
    const after = g.longTasks.filter((task) => task.startTime + task.duration >= answeredAt);
    return {
      listCalls: calls.length,
      longTasks: after.length,
      longTaskMs: Math.round(after.reduce((sum, task) => sum + task.duration, 0)),
      longestTaskMs: Math.round(Math.max(0, ...after.map((task) => task.duration))),
      transferKB: Math.round(calls.reduce((sum, call) => sum + call.encodedBodySize, 0) / 1024),
    };
  });
}

describe('long values', () => {
  it(
    'lists a page of long bodies as one-line previews of bounded length (long tasks reported)',
    async () => {
      const { page } = run;
      const report: Record<string, unknown> = { date: new Date().toISOString(), rows: ROWS + 1 };
      for (const size of [25, 100]) report[`posts, ${size} a page`] = await measureList(page, postsId, size, size);
      report['small (6 rows)'] = await measureList(page, smallId, 25, 6);
      console.log(`long values in the list: ${JSON.stringify(report)}`);
      await writeFile(`${SCREENSHOTS}/long-values-perf.json`, `${JSON.stringify(report, null, 2)}\n`);

      await page.goto(`${base}/tables/${postsId}?size=100`);
      await poll(() => page.getByRole('rowheader').count()).toBe(100);
      await settle(page);
      await screenshot(page, 'contents-list-long-values');
      const shape = await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        const rows = Array.from(g.document.querySelectorAll('[role=grid] [role=row]'));
        const cells = Array.from(g.document.querySelectorAll('[role=grid] [role=gridcell], [role=grid] [role=rowheader]'));
        const header = g.document.querySelectorAll('[role=grid] [role=columnheader]')[0].getBoundingClientRect().height;
        return {
          header,
          tallestRow: Math.max(...rows.slice(1).map((row) => row.getBoundingClientRect().height)),
          longestCell: Math.max(...cells.map((cell) => (cell.textContent ?? '').length)),
          widestCell: Math.max(...cells.map((cell) => cell.getBoundingClientRect().width)),
        };
      });
      // One line of text a row: no taller than twice the header row.
      expect(shape.tallestRow).toBeLessThanOrEqual(shape.header * 2);
      expect(shape.longestCell).toBeLessThanOrEqual(PREVIEW_CHARS);
      expect(shape.widestCell).toBeLessThan(500);
      // The row with the 2,000-character title (the newest, first) is a short row too.
      expect((await page.getByRole('rowheader').first().textContent())?.startsWith('XXXX')).toBe(true);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS * 2,
  );

  it(
    'keeps the editor of a row with a 2,000-character title as wide as the window',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${postsId}/rows/${longTitleId}`);
      await page.getByLabel('Title', { exact: true }).waitFor();
      await poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('X'.repeat(2000));
      await settle(page);
      await screenshot(page, 'content-editor-long-title');
      const width = await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        return { scroll: g.document.documentElement.scrollWidth, viewport: g.innerWidth };
      });
      expect(width.scroll).toBeLessThanOrEqual(width.viewport);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
