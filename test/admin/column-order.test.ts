import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Column order on the tables page (docs/console.md#column-order): by keyboard on a column's
 * handle (the focus stays on it) and by dragging a row; the API's order follows.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let tableId: string;

const order = async () =>
  (await run.t.call('GET', `/v1/${projectId}/tables/${tableId}/columns`)).json.list.map((c: { name: string }) => c.name);

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  tableId = (await run.t.call('POST', `/v1/${projectId}/tables`, { body: { key: 'products', name: 'Products' } })).json.id;
  for (const name of ['alpha', 'bravo', 'charlie', 'delta']) {
    expect((await run.t.call('POST', `/v1/${projectId}/tables/${tableId}/columns`, { body: { name, type: 'text' } })).status).toBe(201);
  }
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('column order', () => {
  it(
    'moves a column with the arrow keys, Home and End, keeping the focus on its handle, and by dragging',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables?table=${tableId}`);
      await page.getByRole('heading', { name: 'Columns of Products' }).waitFor();
      await page.getByRole('button', { name: /^Move delta/ }).focus();
      await page.keyboard.press('ArrowUp');
      await page.getByRole('button', { name: 'Move delta, place 3 of 4' }).waitFor();
      await expect.poll(order).toEqual(['alpha', 'bravo', 'delta', 'charlie']);
      await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Move delta, place 3 of 4');
      await page.keyboard.press('Home');
      await page.getByRole('button', { name: 'Move delta, place 1 of 4' }).waitFor();
      await expect.poll(order).toEqual(['delta', 'alpha', 'bravo', 'charlie']);
      await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Move delta, place 1 of 4');
      await page.getByRole('status').filter({ hasText: 'delta moved to place 1 of 4.' }).waitFor({ state: 'attached' });

      // Drag charlie onto alpha's place (the second).
      await page.getByRole('button', { name: /^Move charlie/ }).dragTo(page.getByRole('button', { name: /^Move alpha/ }));
      await expect.poll(order).toEqual(['delta', 'charlie', 'alpha', 'bravo']);
      await page.getByRole('button', { name: 'Move charlie, place 2 of 4' }).waitFor();
      await screenshot(page, 'column-order');
      await expectAccessible(page, 'the columns with their handles');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    "sets the table's row label; an unknown column is refused at the field; the list names rows by it",
    async () => {
      const { page } = run;
      expect((await run.t.call('POST', `/v1/${projectId}/tables/${tableId}/contents`, { body: { data: { alpha: 'Mug', bravo: 'MUG-1' } } })).status).toBe(201);
      await page.goto(`${base}/tables?table=${tableId}`);
      await page.getByRole('button', { name: 'Edit the table Products' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit the table Products' });
      await dialog.getByLabel('Row label').fill('{{alpha}} ({{nope}})');
      await dialog.getByRole('button', { name: 'Save table' }).click();
      await expect.poll(() => dialog.getByLabel('Row label').getAttribute('aria-invalid')).toBe('true');
      await dialog.getByText('names unknown columns: nope').waitFor();
      await dialog.getByLabel('Row label').fill('{{alpha}} ({{bravo}})');
      await dialog.getByLabel('Row label').press('Enter');
      await dialog.waitFor({ state: 'detached' });
      expect((await run.t.call('GET', `/v1/${projectId}/tables/${tableId}`)).json.settings).toEqual({ display: '{{alpha}} ({{bravo}})' });
      await page.goto(`${base}/tables/${tableId}`);
      await page.getByRole('row', { name: 'Mug (MUG-1)' }).waitFor();
      await screenshot(page, 'list-display');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
