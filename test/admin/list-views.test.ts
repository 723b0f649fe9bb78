import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * What an editor adjusts in the contents list (docs/console.md, "Columns shown", "Pages",
 * "Search totals", "Filters"): columns hidden, shown and resized (kept per table on this device),
 * a jump to page N and to the last page, the count of a search's results, and a filter by one
 * referenced row picked by its name; each by mouse and by keyboard.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let articles: string;

const ROWS = 60;
const WORDS = ['Harbour', 'Lighthouse', 'Ferry', 'Tide'];
const titleOf = (i: number) => `${WORDS[i % 4]} note ${String(i).padStart(2, '0')}`;
/** Grace wrote every third article, Ada the others. */
const byGrace = (i: number) => i % 3 === 0;

async function post(path: string, body: unknown) {
  const res = await run.t.call('POST', `/v1/${projectId}${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });
const rowNames = (page: Page) => page.getByRole('rowheader');
const header = (page: Page, name: string) => page.getByRole('columnheader', { name });
const pager = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
/** The rendered width of a header, in CSS pixels, to the nearest 2 (collapsed borders share a pixel). */
const widthOf = async (page: Page, name: string) => 2 * Math.round((await header(page, name).boundingBox())!.width / 2);
/** Enabled options with an id (the reference picker's rows). */
const options = (page: Page) => page.locator('[role="option"][id]:not([aria-disabled="true"])').allTextContents();

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  const authors = await post('/tables', { key: 'authors', name: 'Authors' });
  await post(`/tables/${authors.id}/columns`, { name: 'name', type: 'text' });
  const ada = await post(`/tables/${authors.id}/contents`, { data: { name: 'Ada Lovelace' }, status: 'PUBLISHED' });
  const grace = await post(`/tables/${authors.id}/contents`, { data: { name: 'Grace Hopper' }, status: 'PUBLISHED' });
  articles = (await post('/tables', { key: 'articles', name: 'Articles' })).id;
  for (const column of [
    { name: 'title', label: 'Title', type: 'text' },
    { name: 'price', label: 'Price', type: 'number' },
    { name: 'author', label: 'Author', type: 'reference', settings: { table: authors.id } },
  ]) {
    await post(`/tables/${articles}/columns`, column);
  }
  const lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ data: { title: titleOf(i), price: i, author: byGrace(i) ? grace.id : ada.id } }));
  const res = await run.t.call('POST', `/v1/${projectId}/tables/${articles}/contents/import`, { raw: Buffer.from(lines.join('\n')), headers: { 'content-type': 'application/x-ndjson' } });
  expect(res.status, res.text).toBe(200);
  await signIn(run);
}, BROWSER_TEST_MS);

afterAll(async () => {
  await run?.close();
});

const openList = async (query = '?sort=price') => {
  await run.page.goto(`${base}/tables/${articles}${query}`);
  await poll(() => rowNames(run.page).count()).toBe(25);
};

describe('the contents list, adjusted', () => {
  it(
    'hides, shows and resizes columns by mouse and keyboard, kept for the table across reloads',
    async () => {
      const { page } = run;
      await openList();
      const columnsButton = page.getByRole('button', { name: /^Columns/ });
      await columnsButton.click();
      const panel = page.getByRole('region', { name: 'Columns shown' });
      // Mouse: Price hidden.
      await panel.getByText('Show Price').click();
      await poll(() => header(page, 'Price').count()).toBe(0);
      expect(await columnsButton.textContent()).toBe('Columns (1 hidden)');
      // Keyboard: Status hidden with Space, then shown again.
      await panel.getByRole('checkbox', { name: 'Show Status' }).focus();
      await page.keyboard.press('Space');
      await poll(() => header(page, 'Status').count()).toBe(0);
      await page.keyboard.press('Space');
      await poll(() => header(page, 'Status').count()).toBe(1);

      // A width typed, then stepped with the arrow keys; the cells take it too.
      const titleWidth = panel.getByRole('spinbutton', { name: 'Width of Title (px)' });
      await titleWidth.fill('300');
      await poll(() => widthOf(page, 'Title')).toBe(300);
      await titleWidth.press('ArrowUp');
      await poll(() => widthOf(page, 'Title')).toBe(310);
      expect(2 * Math.round((await rowNames(page).first().boundingBox())!.width / 2)).toBe(310);

      // The mouse drags a header's right edge.
      const author = header(page, 'Author');
      const before = await widthOf(page, 'Author');
      const box = (await author.locator('.list-resize').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      await poll(() => widthOf(page, 'Author')).toBe(before + 60);
      // Dragging did not sort.
      expect(await author.getAttribute('aria-sort')).toBe('none');
      await expectAccessibleInBothThemes(page, 'contents list, columns panel', 'list-columns');

      // Kept for this table on this device.
      await page.reload();
      await poll(() => rowNames(page).count()).toBe(25);
      expect(await header(page, 'Price').count()).toBe(0);
      expect(await widthOf(page, 'Title')).toBe(310);
      expect(await widthOf(page, 'Author')).toBe(before + 60);
      // Back to the table's own view.
      await page.getByRole('button', { name: /^Columns/ }).click();
      await page.getByRole('button', { name: 'Show every column at its own width' }).press('Enter');
      await poll(() => header(page, 'Price').count()).toBe(1);
      expect(await page.getByRole('spinbutton', { name: 'Width of Title (px)' }).inputValue()).toBe('');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'jumps to the last page and to page N, by mouse and keyboard; a page out of range is said',
    async () => {
      const { page } = run;
      await openList();
      await pager(page).getByText(`Page 1 of 3 · ${ROWS} items`).waitFor();
      await pager(page).getByRole('button', { name: 'Last' }).click();
      await pager(page).getByText(`Page 3 of 3 · ${ROWS} items`).waitFor();
      await poll(() => rowNames(page).allTextContents()).toEqual(Array.from({ length: 10 }, (_, i) => titleOf(50 + i)));
      expect(page.url()).toMatch(/page=3/);
      await pager(page).getByRole('button', { name: 'First' }).click();
      await poll(() => rowNames(page).first().textContent()).toBe(titleOf(0));

      // Keyboard: the page number typed, Enter.
      const jump = pager(page).getByRole('spinbutton', { name: 'Go to page' });
      await jump.focus();
      await page.keyboard.type('2');
      await page.keyboard.press('Enter');
      await pager(page).getByText('Page 2 of 3', { exact: false }).waitFor();
      await poll(() => rowNames(page).first().textContent()).toBe(titleOf(25));
      // Next from a jumped-to page goes on by cursor.
      await pager(page).getByRole('button', { name: 'Next', exact: true }).click();
      await poll(() => rowNames(page).first().textContent()).toBe(titleOf(50));
      await jump.fill('9');
      await pager(page).getByRole('button', { name: 'Go', exact: true }).click();
      await pager(page).getByRole('alert').getByText('Enter a page from 1 to 3').waitFor();
      expect(await rowNames(page).first().textContent()).toBe(titleOf(50));
      await expectAccessibleInBothThemes(page, 'contents list, pager', 'list-pager');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'counts the results of a search',
    async () => {
      const { page } = run;
      await openList();
      const search = page.getByLabel('Search rows');
      await search.fill('ferry');
      const results = page.locator('.list-results');
      await poll(() => results.textContent()).toBe(`${ROWS / 4} results`);
      await poll(() => rowNames(page).count()).toBe(ROWS / 4);
      // A search over several pages: its count, and its pages by number.
      await search.fill('note');
      await poll(() => results.textContent()).toBe(`${ROWS} results`);
      await pager(page).getByText(`Page 1 of 3 · ${ROWS} items`).waitFor();
      await search.fill('ferry 02');
      await poll(() => results.textContent()).toBe('1 result');
      await expectAccessibleInBothThemes(page, 'contents list, search results', 'list-search-results');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'filters by one referenced row picked by its name, by mouse and by keyboard',
    async () => {
      const { page } = run;
      await openList();
      const filters = page.getByRole('region', { name: 'Filters' });
      await filters.getByRole('button', { name: /Filter by/ }).click();
      await page.getByRole('option', { name: 'Author' }).click();
      await filters.getByRole('button', { name: /Condition/ }).click();
      expect(await page.getByRole('option').allTextContents()).toEqual(['is', 'is not', 'is empty', 'has a value']);
      await page.getByRole('option', { name: 'is', exact: true }).click();
      // Mouse: the picker's list, a click on a row.
      const value = filters.getByRole('combobox', { name: 'Value' });
      await value.fill('grace');
      await poll(() => options(page)).toEqual(['Grace Hopper']);
      await page.getByRole('option', { name: 'Grace Hopper' }).click();
      await filters.getByRole('list', { name: 'Chosen for Value' }).getByText('Grace Hopper').waitFor();
      await filters.getByRole('button', { name: 'Add filter' }).click();
      await filters.getByRole('list', { name: 'Active filters' }).getByText('Author is Grace Hopper').waitFor();
      const graces = Array.from({ length: ROWS }, (_, i) => i).filter(byGrace).map(titleOf);
      await poll(() => rowNames(page).allTextContents()).toEqual(graces);
      expect(page.url()).toMatch(/filter=/);
      await expectAccessibleInBothThemes(page, 'contents list, reference filter', 'list-reference-filter');

      // Keyboard: "is not" Ada, picked with ↓ and Enter, added with Enter: nobody is left.
      await filters.getByRole('button', { name: /Condition/ }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('option', { name: 'is not' }).press('Enter');
      await value.focus();
      await page.keyboard.type('ada');
      await poll(() => options(page)).toEqual(['Ada Lovelace']);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await filters.getByRole('list', { name: 'Chosen for Value' }).getByText('Ada Lovelace').waitFor();
      await filters.getByRole('button', { name: 'Add filter' }).press('Enter');
      await filters.getByRole('list', { name: 'Active filters' }).getByText('Author is not Ada Lovelace').waitFor();
      await poll(() => rowNames(page).allTextContents()).toEqual(graces);
      // The chip names the row after a reload too (the address holds its id).
      await page.reload();
      await page.getByRole('list', { name: 'Active filters' }).getByText('Author is Grace Hopper').waitFor();
      await page.getByRole('button', { name: 'Remove filter: Author is not Ada Lovelace' }).click();
      await poll(() => rowNames(page).count()).toBe(graces.length);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
