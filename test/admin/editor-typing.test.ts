import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * A long-text body in the row editor (docs/console.md#long-text): the box grows with its text up
 * to a ceiling and then scrolls, and typing into a body of about 1 MB stays a keystroke's work.
 * The time per typed character is measured and reported (not asserted: a loaded machine's figure).
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let notesId: string;

/** About 1 MB of prose in lines of about 80 characters. */
const MEGABYTE = Array.from({ length: 13_000 }, (_, i) => `Line ${i}: the harbour light turns over the water while the ferry waits at the pier.`).join('\n');
const TYPED = 'abcdefghij';

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const res = await run.t.call('POST', `/v1/${projectId}${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** The body box's heights: as laid out, and what its text would need. */
const boxHeights = (page: Page) =>
  page.getByLabel('Body', { exact: true }).evaluate((el) => {
    const box = el as unknown as { clientHeight: number; scrollHeight: number };
    return { client: box.clientHeight, scroll: box.scrollHeight };
  });

/** Presses each key and waits for the next painted frame; the milliseconds per character. */
async function typeTimed(page: Page, text: string): Promise<number[]> {
  const times: number[] = [];
  for (const key of text) {
    const started = Date.now();
    await page.keyboard.type(key);
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))');
    times.push(Date.now() - started);
  }
  return times;
}

beforeAll(async () => {
  // A 1 MB body and its save fit in one request.
  run = await openConsole({ BODY_MAX_BYTES: String(4 * 1024 * 1024) });
  ({ projectId, base } = await seedProject(run.t));
  notesId = (await post('/tables', { key: 'notes', name: 'Notes', defaultStatus: 'DRAFT' })).id;
  await post(`/tables/${notesId}/columns`, { name: 'title', label: 'Title', type: 'text' });
  await post(`/tables/${notesId}/columns`, { name: 'body', label: 'Body', type: 'longtext' });
  await post(`/tables/${notesId}/columns`, { name: 'summary', label: 'Summary', type: 'longtext', settings: { format: 'markdown' } });
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('a long-text body', () => {
  it(
    'grows with its text up to a ceiling, then scrolls',
    async () => {
      const { page } = run;
      const row = await post(`/tables/${notesId}/contents`, { data: { title: 'Short', body: 'One line' } });
      await page.goto(`${base}/tables/${notesId}/rows/${row.id}`);
      const box = page.getByLabel('Body', { exact: true });
      await box.waitFor();
      const small = await boxHeights(page);
      expect(small.scroll).toBeLessThanOrEqual(small.client + 1);
      // Lines typed at the keyboard make it taller, with no scroll bar.
      await box.click();
      await page.keyboard.press('End');
      for (let i = 0; i < 8; i++) await page.keyboard.type(`\nline ${i}`);
      const grown = await boxHeights(page);
      expect(grown.client).toBeGreaterThan(small.client + 50);
      expect(grown.scroll).toBeLessThanOrEqual(grown.client + 1);
      // Far more lines than a screen: it stops at its ceiling and scrolls.
      await box.fill(Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n'));
      const capped = await boxHeights(page);
      expect(capped.client).toBeLessThan(900);
      expect(capped.scroll).toBeGreaterThan(capped.client);
      await expectAccessibleInBothThemes(page, 'a long-text body at its ceiling', 'editor-long-text');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'types into a 1 MB body at a keystroke per frame or so (measured, reported)',
    async () => {
      const { page } = run;
      const row = await post(`/tables/${notesId}/contents`, { data: { title: 'A megabyte', body: MEGABYTE, summary: `# Notes\n\n${MEGABYTE.slice(0, 200_000)}` } });
      await page.goto(`${base}/tables/${notesId}/rows/${row.id}`);
      const box = page.getByLabel('Body', { exact: true });
      await expect.poll(() => box.evaluate((el) => (el as unknown as { value: string }).value.length), { timeout: 30_000 }).toBe(MEGABYTE.length);
      await box.focus();
      await page.keyboard.press('Control+End');
      const plain = await typeTimed(page, TYPED);
      expect(await box.evaluate((el, typed) => (el as unknown as { value: string }).value.endsWith(typed), TYPED)).toBe(true);
      await page.getByText('Unsaved changes').waitFor();

      // The Markdown column, 200 KB with its preview shown.
      const summary = page.getByLabel('Summary', { exact: true });
      await summary.focus();
      await page.keyboard.press('Control+End');
      const markdown = await typeTimed(page, TYPED);

      // The same text in a bare textarea, outside React, for comparison: the browser's own cost.
      await page.evaluate((text) => {
        const doc = (globalThis as unknown as { document: { createElement(tag: string): { id: string; value: string; spellcheck: boolean; style: { height: string } }; body: { prepend(node: unknown): void } } }).document;
        const bare = doc.createElement('textarea');
        bare.id = 'bare';
        bare.value = text;
        bare.spellcheck = false;
        bare.style.height = '600px';
        doc.body.prepend(bare);
      }, MEGABYTE);
      await page.locator('#bare').focus();
      await page.keyboard.press('Control+End');
      const outside = await typeTimed(page, TYPED);
      await page.evaluate('document.getElementById("bare").remove()');

      const report = (times: number[]) => `${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(0)} ms mean, ${Math.max(...times)} ms max`;
      console.log(`typing into a 1 MB longtext: ${report(plain)} per character (${plain.join(', ')}); into a 200 KB Markdown longtext: ${report(markdown)}; into a bare 1 MB textarea: ${report(outside)} (loaded machine)`);

      // Saved, the typed text is the row's.
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      // The button used keeps the focus.
      expect(await page.evaluate('document.activeElement?.textContent')).toBe('Save');
      const saved = await run.t.call('GET', `/v1/${projectId}/tables/${notesId}/contents/${row.id}`);
      expect(saved.json.data.body).toBe(MEGABYTE + TYPED);
      expect(saved.json.data.summary.endsWith(TYPED)).toBe(true);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
