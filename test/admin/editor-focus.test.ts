import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Where the focus goes in the row editor after a write (docs/console.md#focus): a created row's
 * page starts on its Save button (where Create was), a save keeps the focus on the control used
 * (the Save button, or the field Enter was pressed in), and a refused save moves it to the error
 * summary, whose entries lead to their fields. Never to the page's body.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let itemsId: string;

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const res = await run.t.call('POST', `/v1/${projectId}${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const focusedText = (page: Page) => page.evaluate('document.activeElement?.textContent ?? null');
const focusedRole = (page: Page) => page.evaluate('document.activeElement?.getAttribute("role") ?? document.activeElement?.tagName ?? null');
const isFocused = (field: Locator) => field.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  itemsId = (await post('/tables', { key: 'items', name: 'Items', defaultStatus: 'DRAFT' })).id;
  await post(`/tables/${itemsId}/columns`, { name: 'title', label: 'Title', type: 'text', settings: { required: true } });
  await post(`/tables/${itemsId}/columns`, { name: 'price', label: 'Price', type: 'number', settings: { min: 0 } });
  await post(`/tables/${itemsId}/columns`, { name: 'meta', label: 'Meta', type: 'json' });
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('focus in the row editor', () => {
  it(
    'lands on Save after create, stays on the control used after a save, and goes to the error summary after a refusal',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${itemsId}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Items', level: 1 }).waitFor();
      // Created with the keyboard: Enter in a field.
      await page.getByLabel('Title').focus();
      await page.keyboard.type('Kettle');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/rows\/[0-9a-f-]{36}$/);
      await page.getByRole('heading', { name: 'Kettle', level: 1 }).waitFor();
      await poll(() => focusedText(page)).toBe('Save');
      expect(await page.title()).toBe('Kettle · Items · Tabula');

      // Refused by the API (422), from the keyboard: the summary has the focus, its entry leads to the field.
      const price = page.getByLabel('Price', { exact: true });
      await price.focus();
      await page.keyboard.type('-5');
      await page.keyboard.press('Enter');
      await poll(() => focusedRole(page)).toBe('alert');
      expect(await page.getByRole('alert').textContent()).toContain('Price: must be at least 0');
      await expectAccessibleInBothThemes(page, 'the row editor with its error summary focused', 'editor-focus-summary');
      await page.keyboard.press('Tab');
      expect(await focusedText(page)).toBe('Price');
      await page.keyboard.press('Enter');
      await poll(() => isFocused(price)).toBe(true);

      // Saved from the field with Enter: the field keeps the focus.
      await page.keyboard.press('Control+A');
      await page.keyboard.type('12');
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Saved.').waitFor();
      expect(await isFocused(price)).toBe(true);

      // Saved with the mouse: the button keeps the focus.
      await price.fill('13');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      expect(await focusedText(page)).toBe('Save');
      expect((await run.t.call('GET', `/v1/${projectId}/tables/${itemsId}/contents/${page.url().split('/rows/')[1]}`)).json.data.price).toBe(13);

      // A value the browser refuses (not JSON): the summary too.
      await page.getByLabel('Meta').fill('{not json');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await poll(() => focusedRole(page)).toBe('alert');
      expect(await page.getByRole('alert').textContent()).toContain('Meta: is not valid JSON');

      // Reset: the button is disabled with nothing left to reset; its neighbour Save takes the focus.
      await page.getByRole('button', { name: 'Reset changes' }).click();
      await poll(() => focusedText(page)).toBe('Save');
      // Save with nothing changed says so, and keeps the focus.
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Nothing to save: no value was changed.').waitFor();
      expect(await focusedText(page)).toBe('Save');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
