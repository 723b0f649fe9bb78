import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Categories (a tree), variables (JSON checked as typed) and translations (keys by locales, the
 * missing ones marked), used by mouse and keyboard (docs/console.md#categories-variables-translations).
 */

let run: ConsoleRun;
let seeded: Awaited<ReturnType<typeof seedProject>>;
beforeAll(async () => {
  run = await openConsole();
  seeded = await seedProject(run.t);
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

const api = (path: string) => run.t.call('GET', `/v1/${seeded.projectId}/${path}`).then((r) => r.json.list);

async function createCategory(page: Page, name: string, under?: string) {
  await page.getByRole('button', { name: under ? `Add under ${under}` : 'New category' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Name').press('Enter');
  await dialog.waitFor({ state: 'detached' });
}

describe('categories, variables and translations', () => {
  it(
    'builds a category tree, renames, moves (never under itself) and deletes',
    async () => {
      const { page } = run;
      await page.goto(`${seeded.base}/categories`);
      await page.getByRole('heading', { name: 'Categories', level: 1 }).waitFor();
      await createCategory(page, 'News');
      await createCategory(page, 'Sport', 'News');
      await createCategory(page, 'Tennis', 'Sport');
      await createCategory(page, 'Culture');
      const tree = page.getByRole('list', { name: 'Categories' });
      // Tennis is drawn under Sport, under News.
      await tree.getByRole('listitem').filter({ hasText: 'News' }).getByRole('listitem').filter({ hasText: 'Sport' }).getByText('Tennis', { exact: true }).waitFor();

      // Rename with the keyboard.
      await page.getByRole('button', { name: 'Rename Culture' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').getByLabel('Name').fill('Arts');
      await page.keyboard.press('Enter');
      await tree.getByText('Arts', { exact: true }).waitFor();

      // Move News: neither itself nor Sport or Tennis (under it) is offered; under Arts it goes.
      await page.getByRole('button', { name: 'Move News' }).click();
      const move = page.getByRole('dialog', { name: 'Move “News”' });
      await move.locator('.field', { has: page.getByText('New parent', { exact: true }) }).getByRole('button').click();
      const options = await page.getByRole('option').allTextContents();
      expect(options).toEqual(['Top level', 'Arts']);
      await page.getByRole('option', { name: 'Arts' }).click();
      await move.getByRole('button', { name: 'Move' }).click();
      await move.waitFor({ state: 'detached' });
      await expect.poll(async () => (await api('categories')).find((c: { name: string }) => c.name === 'News').parentId).toBe(
        (await api('categories')).find((c: { name: string }) => c.name === 'Arts').id,
      );
      await expectAccessibleInBothThemes(page, 'categories', 'categories');

      // Delete Sport: Tennis goes to the top level.
      await page.getByRole('button', { name: 'Delete Sport' }).click();
      await page.getByRole('dialog', { name: 'Delete “Sport”?' }).getByRole('button', { name: 'Delete category' }).click();
      await expect.poll(async () => (await api('categories')).map((c: { name: string; parentId: string | null }) => `${c.name}:${c.parentId === null}`).sort()).toEqual(['Arts:true', 'News:false', 'Tennis:true']);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'edits variables as JSON, saying where the text is not JSON',
    async () => {
      const { page } = run;
      await page.goto(`${seeded.base}/variables`);
      await page.getByRole('heading', { name: 'Variables', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New variable' }).click();
      const dialog = page.getByRole('dialog', { name: 'New variable' });
      await dialog.getByLabel('Key').fill('site.banner');
      const value = dialog.getByLabel('Value (JSON)');
      await value.fill('{\n  "on": true,\n  "text": "Sale"\n  "until": 3\n}');
      await expect.poll(() => value.getAttribute('aria-invalid')).toBe('true');
      await dialog.getByText(/Not valid JSON at line 4, column 3/).waitFor();
      expect(await dialog.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
      await expectAccessibleInBothThemes(page, 'variables: invalid JSON', 'variables-invalid');
      await value.fill('{ "on": true, "text": "Sale", "until": 3 }');
      await dialog.getByText('Valid JSON: an object').waitFor();
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      const row = page.getByRole('row', { name: /site\.banner/ });
      await row.waitFor();
      expect((await api('variables'))[0].value).toEqual({ on: true, text: 'Sale', until: 3 });

      // Edit with the keyboard: a list now.
      await row.getByRole('button', { name: 'Edit site.banner' }).focus();
      await page.keyboard.press('Enter');
      const edit = page.getByRole('dialog', { name: 'Edit “site.banner”' });
      await edit.getByLabel('Value (JSON)').fill('[1, "two", null]');
      await edit.getByLabel('Description').fill('The banner');
      await edit.getByLabel('Description').press('Enter');
      await edit.waitFor({ state: 'detached' });
      await expect.poll(async () => (await api('variables'))[0].value).toEqual([1, 'two', null]);
      await expectAccessibleInBothThemes(page, 'variables', 'variables');

      await row.getByRole('button', { name: 'Delete site.banner' }).click();
      await page.getByRole('dialog', { name: 'Delete “site.banner”?' }).getByRole('button', { name: 'Delete variable' }).click();
      await row.waitFor({ state: 'detached' });
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'shows translations as keys by locales with the missing ones marked, and edits them in place',
    async () => {
      const { page, t } = run;
      for (const [key, locale, value] of [['home.title', 'en', 'Welcome'], ['home.title', 'de', 'Willkommen'], ['cart.empty', 'en', 'Your cart is empty']]) {
        const res = await t.call('POST', `/v1/${seeded.projectId}/translations`, { body: { key, locale, value } });
        expect(res.status, res.text).toBe(201);
      }
      await page.goto(`${seeded.base}/translations`);
      await page.getByRole('heading', { name: 'Translations', level: 1 }).waitFor();
      const grid = page.getByRole('table', { name: 'Translations' });
      await page.getByText('1 missing.').waitFor();
      const missing = grid.getByRole('textbox', { name: 'cart.empty in de (missing)' });
      await missing.waitFor();
      await expectAccessibleInBothThemes(page, 'translations', 'translations');

      // Fill the missing one with the keyboard: type, Enter saves.
      await missing.focus();
      await page.keyboard.type('Dein Warenkorb ist leer');
      await page.keyboard.press('Enter');
      await page.getByText('None missing.').waitFor();
      await grid.getByRole('textbox', { name: 'cart.empty in de', exact: true }).waitFor();

      // Change one, leaving the cell (Tab) saves it.
      const title = grid.getByRole('textbox', { name: 'home.title in en', exact: true });
      await title.fill('Hello');
      await page.keyboard.press('Tab');
      await page.getByText('Saved home.title in en').waitFor();

      // A new key: its cells start missing; only the missing filter shows it.
      await page.getByLabel('New key').fill('footer.legal');
      await page.getByRole('button', { name: 'Add key' }).click();
      await grid.getByRole('textbox', { name: 'footer.legal in en (missing)' }).fill('Imprint');
      await page.keyboard.press('Tab');
      await page.getByText('Saved footer.legal in en').waitFor();
      await page.getByRole('checkbox', { name: 'Only keys with a missing translation' }).press('Space');
      await expect.poll(() => grid.getByRole('row').count()).toBe(2);
      await grid.getByRole('row', { name: /footer\.legal/ }).waitFor();

      const stored = (await api('translations')).map((tr: { key: string; locale: string; value: string }) => `${tr.key}/${tr.locale}=${tr.value}`).sort();
      expect(stored).toEqual(['cart.empty/de=Dein Warenkorb ist leer', 'cart.empty/en=Your cart is empty', 'footer.legal/en=Imprint', 'home.title/de=Willkommen', 'home.title/en=Hello']);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
