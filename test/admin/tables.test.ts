import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

let run: ConsoleRun;
let projectId: string;
let base: string;
let authorsId: string;

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  // The table a reference column points at, and one to delete: made through the API, as the page is not about them.
  const authors = await run.t.call('POST', `/v1/${projectId}/tables`, { body: { key: 'authors', name: 'Authors' } });
  expect(authors.status).toBe(201);
  authorsId = authors.json.id;
  expect((await run.t.call('POST', `/v1/${projectId}/tables`, { body: { key: 'scratch', name: 'Scratch pad' } })).status).toBe(201);
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

/** Picks `option` in the react-aria select labelled `label` (a button that opens a listbox). */
async function choose(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await scope.locator('.field', { has: page.getByText(label, { exact: true }) }).getByRole('button').click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Ticks a checkbox with the keyboard (Space), as its box covers the native input. */
async function tick(scope: Locator, name: string | RegExp): Promise<void> {
  const checkbox = scope.getByRole('checkbox', { name });
  await checkbox.press('Space');
  expect(await checkbox.isChecked()).toBe(true);
}

interface ColumnSpec {
  name: string;
  type: string;
  label?: string;
  /** Fills the settings of the type. */
  fill?(dialog: Locator): Promise<void>;
  /** What the API holds afterwards. */
  settings: Record<string, unknown>;
}

/** A column's row, by its edit button (its label may repeat its name in another cell). */
const columnRow = (page: Page, name: string) => page.getByRole('button', { name: `Edit the column ${name}`, exact: true });

async function addColumn(page: Page, spec: ColumnSpec): Promise<void> {
  await page.getByRole('button', { name: 'Add column' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name', { exact: true }).fill(spec.name);
  if (spec.label) await dialog.getByLabel('Label', { exact: true }).fill(spec.label);
  if (spec.type !== 'Text') await choose(page, dialog, 'Type', spec.type);
  await spec.fill?.(dialog);
  await dialog.getByRole('button', { name: 'Add column' }).click();
  await dialog.waitFor({ state: 'detached' });
  await columnRow(page, spec.name).waitFor();
}

const COLUMNS = (): (ColumnSpec & { apiType: string })[] => [
  {
    name: 'title', apiType: 'text', type: 'Text', label: 'Title',
    fill: async (d) => {
      await d.getByLabel('Minimum length').fill('3');
      await d.getByLabel('Maximum length').fill('120');
      await tick(d, /Localized/);
      await tick(d, 'Required');
    },
    settings: { minText: 3, maxText: 120, localized: true, required: true },
  },
  { name: 'body', apiType: 'longtext', type: 'Long text', fill: (d) => tick(d, /Localized/), settings: { localized: true } },
  { name: 'code', apiType: 'text', type: 'Text', fill: (d) => d.getByLabel('Pattern').fill('^[A-Z]{3}$'), settings: { pattern: '^[A-Z]{3}$' } },
  {
    name: 'price', apiType: 'number', type: 'Number',
    fill: async (d) => {
      await d.getByLabel('Minimum', { exact: true }).fill('0');
      await d.getByLabel('Maximum', { exact: true }).fill('999.99');
    },
    settings: { min: 0, max: 999.99 },
  },
  { name: 'stock', apiType: 'integer', type: 'Integer', fill: (d) => d.getByLabel('Default value').fill('0'), settings: { defaultValue: 0 } },
  { name: 'featured', apiType: 'boolean', type: 'Boolean', fill: (d) => choose(d.page(), d, 'Default value', 'Yes (true)'), settings: { defaultValue: true } },
  { name: 'issueDate', apiType: 'date', type: 'Date', settings: {} },
  { name: 'reviewedAt', apiType: 'datetime', type: 'Date and time', settings: {} },
  { name: 'contact', apiType: 'email', type: 'E-mail', fill: (d) => tick(d, 'Unique'), settings: { unique: true } },
  { name: 'website', apiType: 'url', type: 'URL', fill: (d) => tick(d, /Localized/), settings: { localized: true } },
  {
    name: 'section', apiType: 'select', type: 'Select',
    fill: async (d) => {
      await d.getByLabel('Options').fill('news\nopinion\nreview');
      await choose(d.page(), d, 'Default value', 'news');
    },
    settings: { options: ['news', 'opinion', 'review'], defaultValue: 'news' },
  },
  {
    name: 'tags', apiType: 'select', type: 'Select',
    fill: async (d) => {
      await d.getByLabel('Options').fill('sport\nculture');
      await tick(d, 'Multiple values');
    },
    settings: { options: ['sport', 'culture'], multiple: true },
  },
  { name: 'meta', apiType: 'json', type: 'JSON', fill: (d) => d.getByLabel('Default value').fill('{"layout": "wide"}'), settings: { defaultValue: { layout: 'wide' } } },
  { name: 'slug', apiType: 'slug', type: 'Slug', fill: (d) => choose(d.page(), d, 'Derived from', 'Title (title)'), settings: { source: 'title' } },
  {
    name: 'author', apiType: 'reference', type: 'Reference',
    fill: async (d) => {
      await choose(d.page(), d, 'Referenced table', 'Authors');
      await choose(d.page(), d, 'When a referenced row is deleted', 'Refuse the delete');
    },
    settings: { table: '<authors>', onDelete: 'restrict' },
  },
  { name: 'cover', apiType: 'file', type: 'File', settings: {} },
  { name: 'gallery', apiType: 'file', type: 'File', fill: (d) => tick(d, 'Multiple values'), settings: { multiple: true } },
];

describe('tables and columns page', () => {
  it(
    'creates a table, columns of every type, edits one, shows refusals at their fields, deletes a column and a table',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables`);
      await page.getByRole('heading', { name: 'Tables and columns', level: 1 }).waitFor();

      // A table, with the keyboard: the key follows the name.
      await page.getByRole('button', { name: 'New table' }).click();
      const tableDialog = page.getByRole('dialog');
      await tableDialog.getByLabel('Name', { exact: true }).fill('Articles');
      expect(await tableDialog.getByLabel('Key').inputValue()).toBe('articles');
      await tableDialog.getByLabel('Description').fill('Stories of the magazine');
      await choose(page, tableDialog, 'Status of new rows', 'Draft');
      await tableDialog.getByLabel('Name', { exact: true }).press('Enter');
      await tableDialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: 'Columns of Articles' }).waitFor();
      // The project's sidebar lists it at once.
      await page.getByRole('list', { name: 'Contents by table' }).getByRole('link', { name: 'Articles' }).waitFor();

      const specs = COLUMNS();
      for (const spec of specs) await addColumn(page, spec);

      // An invalid name (400) and a default the type refuses (422) stand at their fields.
      await page.getByRole('button', { name: 'Edit the column stock' }).click();
      let dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name', { exact: true }).fill('2nd');
      await dialog.getByRole('button', { name: 'Save column' }).click();
      await expect.poll(() => dialog.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      expect(await dialog.locator('.field', { has: page.getByText('Name', { exact: true }) }).locator('.field-error').textContent()).toMatch(/must match/);
      await dialog.getByLabel('Name', { exact: true }).fill('stock');
      await dialog.getByLabel('Default value').fill('many');
      await dialog.getByRole('button', { name: 'Save column' }).click();
      await expect.poll(() => dialog.getByLabel('Default value').getAttribute('aria-invalid')).toBe('true');
      expect(await dialog.locator('.field', { has: page.getByText('Default value', { exact: true }) }).locator('.field-error').textContent()).toBe('must be a number');
      await expectAccessible(page, 'tables: column form');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Editing one: label, a bound and a removed setting.
      await page.getByRole('button', { name: 'Edit the column price' }).click();
      dialog = page.getByRole('dialog');
      expect(await dialog.getByLabel('Maximum', { exact: true }).inputValue()).toBe('999.99');
      await dialog.getByLabel('Label', { exact: true }).fill('Price in euros');
      await dialog.getByLabel('Minimum', { exact: true }).fill('');
      await dialog.getByLabel('Maximum', { exact: true }).fill('500');
      await tick(dialog, 'Required');
      await dialog.getByRole('button', { name: 'Save column' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: 'Price in euros' }).waitFor();
      Object.assign(specs.find((s) => s.name === 'price')!, { label: 'Price in euros', settings: { max: 500, required: true } });

      // Deleting one, after a confirmation that names it.
      await addColumn(page, { name: 'obsolete', type: 'Boolean', settings: {} });
      await page.getByRole('button', { name: 'Delete the column obsolete' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Delete the column obsolete?' });
      await confirm.getByRole('button', { name: 'Delete column' }).click();
      await confirm.waitFor({ state: 'detached' });
      await columnRow(page, 'obsolete').waitFor({ state: 'detached' });

      // The API holds the columns as made, in the order they were added.
      const listed = await run.t.call('GET', `/v1/${projectId}/tables/articles/columns?size=100`);
      expect(listed.status).toBe(200);
      expect(listed.json.list.map((c: { name: string }) => c.name)).toEqual(specs.map((s) => s.name));
      for (const spec of specs) {
        const column = listed.json.list.find((c: { name: string }) => c.name === spec.name);
        const settings = spec.name === 'author' ? { ...spec.settings, table: authorsId } : spec.settings;
        expect({ type: column.type, label: column.label, settings: column.settings }, spec.name).toEqual({ type: spec.apiType, label: spec.label ?? spec.name, settings });
      }
      const table = await run.t.call('GET', `/v1/${projectId}/tables/articles`);
      expect(table.json).toMatchObject({ name: 'Articles', description: 'Stories of the magazine', defaultStatus: 'DRAFT' });

      await columnRow(page, 'gallery').waitFor();
      await expectAccessible(page, 'tables');
      await screenshot(page, 'tables');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it('edits a table and deletes another after naming it', async () => {
    const { page } = run;
    await page.getByRole('button', { name: 'Edit the table Articles' }).click();
    const dialog = page.getByRole('dialog');
    // The key of an existing table does not follow its name.
    await dialog.getByLabel('Name', { exact: true }).fill('Stories');
    expect(await dialog.getByLabel('Key').inputValue()).toBe('articles');
    await dialog.getByLabel('Key').fill('authors');
    await dialog.getByRole('button', { name: 'Save table' }).click();
    // Another table's key: the 409 stands at the key.
    await expect.poll(() => dialog.getByLabel('Key').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Key').fill('stories');
    await choose(page, dialog, 'Status of new rows', 'Published');
    await dialog.getByRole('button', { name: 'Save table' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Columns of Stories' }).waitFor();
    expect((await run.t.call('GET', `/v1/${projectId}/tables/stories`)).json).toMatchObject({ name: 'Stories', defaultStatus: 'PUBLISHED' });

    await page.getByRole('button', { name: 'Delete the table Scratch pad' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete the table Scratch pad?' });
    await expectAccessible(page, 'tables: delete dialog');
    await confirm.getByRole('button', { name: 'Delete table' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Columns of Scratch pad' }).waitFor({ state: 'detached' });
    // The sidebar forgets it too.
    await page.getByRole('list', { name: 'Contents by table' }).getByRole('link', { name: 'Scratch pad' }).waitFor({ state: 'detached' });
    expect((await run.t.call('GET', `/v1/${projectId}/tables/scratch`)).status).toBe(404);

    // The contents link opens the table's rows page.
    await page.getByRole('link', { name: 'Contents of Stories' }).click();
    await page.waitForURL(/\/tables\/[0-9a-f-]{36}$/);
    expect(run.problems).toEqual([]);
  }, BROWSER_TEST_MS);
});
