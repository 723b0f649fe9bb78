import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * A table's import and export page (docs/console.md#import-and-export), used by mouse and
 * keyboard: the export carries the list's filter and sort and is read back from the saved file;
 * an import maps the file's header, shows the lines a 422 names, and imports once they are right.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let books: string;

const PRICES = [5, 8, 12, 15, 20];

async function titles(query = '') {
  const res = await run.t.call('GET', `/v1/${projectId}/tables/${books}/contents?size=100&sort=${encodeURIComponent(JSON.stringify([{ i: 'title', o: 'asc' }]))}${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.json.list as { data: { title: string } }[]).map((r) => r.data.title);
}

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  books = (await run.t.call('POST', `/v1/${projectId}/tables`, { body: { key: 'books', name: 'Books' } })).json.id;
  for (const column of [
    { name: 'title', label: 'Title', type: 'text', settings: { required: true } },
    { name: 'isbn', label: 'ISBN', type: 'text', settings: { unique: true } },
    { name: 'price', label: 'Price', type: 'number', settings: { min: 0 } },
  ]) {
    expect((await run.t.call('POST', `/v1/${projectId}/tables/${books}/columns`, { body: column })).status).toBe(201);
  }
  const lines = PRICES.map((price, i) => JSON.stringify({ data: { title: `Book ${i + 1}`, isbn: `isbn-${i + 1}`, price } }));
  const res = await run.t.call('POST', `/v1/${projectId}/tables/${books}/contents/import`, { raw: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
  expect(res.status, res.text).toBe(200);
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('import and export page', () => {
  it(
    "exports the list's filtered, sorted rows to a saved file, as CSV and NDJSON",
    async () => {
      const { page } = run;
      const filter = encodeURIComponent(JSON.stringify([{ i: 'price', w: 'lt', v: '10' }]));
      await page.goto(`${base}/tables/${books}?sort=-price&filter=${filter}`);
      await page.getByRole('link', { name: 'Import and export' }).click();
      await page.getByRole('heading', { name: 'Import and export: Books', level: 1 }).waitFor();
      await page.getByText('The rows the list shows: the list’s filter, sorted by price (descending).').waitFor();

      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export', exact: true }).click()]);
      expect(csv.suggestedFilename()).toBe('books.csv');
      const text = await readFile((await csv.path())!, 'utf8');
      const lines = text.trim().split(/\r?\n/);
      expect(lines[0]).toMatch(/^id,.*title,isbn,price$/);
      expect(lines.slice(1).map((line) => line.split(',').slice(-2).join(','))).toEqual(['isbn-2,8', 'isbn-1,5']);
      await page.getByRole('status').filter({ hasText: 'Exported 2 rows' }).waitFor();

      // NDJSON by keyboard: the format's select, then Enter on the button.
      await page.getByRole('button', { name: /Format/ }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('option', { name: 'NDJSON' }).waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Export', exact: true }).focus();
      const [ndjson] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
      expect(ndjson.suggestedFilename()).toBe('books.ndjson');
      const rows = (await readFile((await ndjson.path())!, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { data: { isbn: string } });
      expect(rows.map((r) => r.data.isbn)).toEqual(['isbn-2', 'isbn-1']);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'imports a picked CSV with its header mapped; the lines a 422 names are listed and nothing is written',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${books}/io`);
      await page.getByRole('heading', { name: 'Import and export: Books', level: 1 }).waitFor();
      const bad = ['Title,ISBN,price,notes', 'Good one,isbn-10,3,x', 'Negative,isbn-11,-1,y', 'Twice,isbn-1,4,z'].join('\r\n');
      await page.locator('input[type=file]').setInputFiles({ name: 'books.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
      const mapping = page.getByRole('table', { name: 'Header mapping' });
      await mapping.waitFor();
      // `price` names a column: mapped at once; the others are chosen, `notes` left out.
      await expect.poll(() => page.getByRole('button', { name: /Column for price/ }).textContent()).toContain('Price (price)');
      await page.getByRole('button', { name: /Column for Title/ }).click();
      await page.getByRole('option', { name: 'Title (title)' }).click();
      await page.getByRole('button', { name: /Column for ISBN/ }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('option', { name: 'ISBN (isbn)' }).click();
      await page.getByRole('button', { name: 'Import', exact: true }).click();

      const failed = page.getByRole('table', { name: 'Lines that failed' });
      await failed.waitFor();
      const cells = await failed.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
      expect(cells).toEqual([
        ['3', 'data.price'],
        ['4', 'data.isbn'],
      ]);
      await page.getByRole('alert').filter({ hasText: 'Nothing was imported: 2 lines fail' }).waitFor();
      expect(await titles()).toEqual(['Book 1', 'Book 2', 'Book 3', 'Book 4', 'Book 5']);
      await expectAccessibleInBothThemes(page, 'import with failed lines', 'table-io');

      // The same file, right: imported with progress shown, then listed.
      const good = ['Title,ISBN,price,notes', 'Good one,isbn-10,3,x', 'Positive,isbn-11,1,y'].join('\r\n');
      await page.locator('input[type=file]').setInputFiles({ name: 'books.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
      await page.getByRole('button', { name: /Column for Title/ }).click();
      await page.getByRole('option', { name: 'Title (title)' }).click();
      await page.getByRole('button', { name: /Column for ISBN/ }).click();
      await page.getByRole('option', { name: 'ISBN (isbn)' }).click();
      await page.getByRole('button', { name: 'Import', exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Imported 2 rows.' }).waitFor();
      expect(await titles()).toEqual(['Book 1', 'Book 2', 'Book 3', 'Book 4', 'Book 5', 'Good one', 'Positive']);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'imports a dropped NDJSON file, its data keys mapped',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${books}/io`);
      const ndjson = [JSON.stringify({ data: { name: 'Dropped', isbn: 'isbn-20', price: 2 } }), JSON.stringify({ data: { name: 'Dropped too', isbn: 'isbn-21' }, status: 'PUBLISHED' })].join('\n');
      // A drop as the browser makes it: a DataTransfer holding the file, over the drop zone.
      const zone = page.locator('.io-drop');
      await zone.waitFor();
      const transfer = await page.evaluateHandle((text) => {
        // In the page: its DataTransfer and File (the test's tsconfig has no DOM types).
        const { DataTransfer, File } = globalThis as unknown as {
          DataTransfer: new () => { items: { add(file: unknown): void } };
          File: new (parts: string[], name: string, options: { type: string }) => unknown;
        };
        const data = new DataTransfer();
        data.items.add(new File([text], 'more.ndjson', { type: 'application/x-ndjson' }));
        return data;
      }, ndjson);
      for (const type of ['dragenter', 'dragover', 'drop']) await zone.dispatchEvent(type, { dataTransfer: transfer });
      await page.getByText('more.ndjson').waitFor();
      await page.getByRole('button', { name: /Column for name/ }).click();
      await page.getByRole('option', { name: 'Title (title)' }).click();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Imported 2 rows.' }).waitFor();
      expect(await titles(`&filter=${encodeURIComponent(JSON.stringify([{ i: 'price', w: 'lt', v: '3' }]))}`)).toEqual(['Dropped', 'Positive']);
      expect(await titles()).toContain('Dropped too');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
