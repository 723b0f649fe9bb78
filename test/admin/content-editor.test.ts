import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * The contents editor driven as a person would: a row with a value of every column type, a
 * second locale, a reference found by search, an uploaded image and its preview, the API's 422
 * and 409 at their fields, publishing, scheduling and a draft of the published row. Each step
 * is checked through the REST API, not only on screen.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let articles: string;
let grace: string;
let ada: string;
let alan: string;

const COLUMNS = [
  { name: 'title', label: 'Title', type: 'text', settings: { localized: true, required: true } },
  { name: 'slug', label: 'Slug', type: 'slug', settings: { source: 'title' } },
  { name: 'code', label: 'Code', type: 'text', settings: { unique: true } },
  { name: 'body', label: 'Body', type: 'longtext' },
  { name: 'price', label: 'Price', type: 'number', settings: { min: 0 } },
  { name: 'stock', label: 'Stock', type: 'integer' },
  { name: 'featured', label: 'Featured', type: 'boolean' },
  { name: 'releaseDate', label: 'Release date', type: 'date' },
  { name: 'launchAt', label: 'Launch at', type: 'datetime' },
  { name: 'contact', label: 'Contact', type: 'email' },
  { name: 'website', label: 'Website', type: 'url' },
  { name: 'category', label: 'Category', type: 'select', settings: { options: ['news', 'review', 'guide'] } },
  { name: 'tags', label: 'Tags', type: 'select', settings: { options: ['arctic', 'night', 'sky'], multiple: true } },
  { name: 'meta', label: 'Meta', type: 'json' },
  { name: 'author', label: 'Author', type: 'reference', settings: { table: 'authors' } },
  { name: 'related', label: 'Related people', type: 'reference', settings: { table: 'authors', multiple: true } },
  { name: 'cover', label: 'Cover', type: 'file' },
];

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const res = await run.t.call('POST', `/v1/${projectId}${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const rowPath = (id: string) => `/v1/${projectId}/tables/${articles}/contents/${id}`;
async function readRow(id: string, query = '') {
  const res = await run.t.call('GET', `${rowPath(id)}${query}`);
  expect(res.status).toBe(200);
  return res.json;
}

/** A `datetime-local` value in the browser's time zone and the UTC instant the API stores for it. */
async function localTime(page: Page, fromNowMs: number): Promise<{ local: string; iso: string }> {
  return page.evaluate((offset) => {
    const d = new Date(Date.now() + offset);
    d.setSeconds(0, 0);
    const p = (n: number) => String(n).padStart(2, '0');
    return { local: `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`, iso: d.toISOString() };
  }, fromNowMs);
}

const invalid = (page: Page, label: string) => page.getByLabel(label, { exact: true }).getAttribute('aria-invalid');

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  const authors = await post('/tables', { key: 'authors', name: 'Authors' });
  await post(`/tables/${authors.id}/columns`, { name: 'name', label: 'Name', type: 'text' });
  ada = (await post(`/tables/${authors.id}/contents`, { data: { name: 'Ada Lovelace' } })).id;
  alan = (await post(`/tables/${authors.id}/contents`, { data: { name: 'Alan Turing' } })).id;
  grace = (await post(`/tables/${authors.id}/contents`, { data: { name: 'Grace Hopper' } })).id;
  articles = (await post('/tables', { key: 'articles', name: 'Articles', defaultStatus: 'DRAFT' })).id;
  for (const column of COLUMNS) await post(`/tables/${articles}/columns`, column);
  await post(`/tables/${articles}/contents`, { data: { title: 'Taken', code: 'TAKEN-1' } });
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('the contents editor', () => {
  it(
    'creates a row of every type, edits it in two locales, shows 422 and 409 at their fields, publishes, schedules and publishes a draft',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${articles}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Articles', level: 1 }).waitFor();

      await page.getByLabel('Title (en)').fill('Northern lights');
      await page.getByLabel('Code', { exact: true }).fill('NL-1');
      await page.getByLabel('Body').fill('Green skies over **Tromsø**.');
      await page.getByLabel('Price', { exact: true }).fill('12.5');
      await page.getByLabel('Stock').fill('7');
      await page.getByRole('checkbox', { name: 'Featured' }).focus();
      await page.keyboard.press('Space');
      await page.getByLabel('Release date').fill('2026-12-01');
      await page.getByLabel('Launch at').fill('2026-12-24T18:30');
      await page.getByLabel('Contact').fill('desk@example.com');
      await page.getByLabel('Website').fill('https://example.com/lights');
      await page.getByRole('button', { name: /Category/ }).click();
      await page.getByRole('option', { name: 'review' }).click();
      await page.getByRole('checkbox', { name: 'night' }).focus();
      await page.keyboard.press('Space');
      await page.getByRole('checkbox', { name: 'sky' }).focus();
      await page.keyboard.press('Space');
      await page.getByLabel('Meta').fill('{"pages": 3, "sources": ["NOAA"]}');
      // The reference: found by a word of its title, shown by its name.
      await page.getByRole('combobox', { name: 'Author' }).fill('Grac');
      await page.getByRole('option', { name: 'Grace Hopper' }).click();
      await page.getByRole('list', { name: 'Chosen for Author' }).getByText('Grace Hopper').waitFor();
      // Many references, in the order picked, by keyboard.
      const related = page.getByRole('combobox', { name: 'Related people' });
      await related.fill('alan');
      // Only the search's match is listed once the search has answered.
      await expect.poll(() => page.getByRole('option').allTextContents()).toEqual(['Alan Turing']);
      await related.press('ArrowDown');
      await related.press('Enter');
      await page.getByRole('list', { name: 'Chosen for Related people' }).getByText('Alan Turing').waitFor();
      await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("role")')).toBe('combobox');
      await page.keyboard.type('Ada');
      await expect.poll(() => page.getByRole('option').allTextContents()).toEqual(['Ada Lovelace']);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByRole('list', { name: 'Chosen for Related people' }).getByText('Ada Lovelace').waitFor();
      // The file: uploaded through the file chooser, previewed from a thumbnail the API derives.
      const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#1d7a5a' } }).png().toBuffer();
      const chooser = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Upload Cover' }).click();
      await (await chooser).setFiles({ name: 'aurora.png', mimeType: 'image/png', buffer: png });
      const preview = page.getByRole('img', { name: 'Preview of aurora.png' });
      await preview.waitFor();
      expect(await preview.getAttribute('src')).toMatch(/^blob:/);
      expect(await preview.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);

      await page.getByRole('button', { name: 'Create row' }).click();
      await page.waitForURL(/\/rows\/[0-9a-f-]{36}$/);
      const id = /\/rows\/([0-9a-f-]{36})$/.exec(page.url())![1];
      await page.getByRole('heading', { name: 'Northern lights', level: 1 }).waitFor();
      const launch = await page.evaluate(() => new Date('2026-12-24T18:30').toISOString());
      const created = await readRow(id);
      const coverId = created.data.cover;
      expect(created).toMatchObject({
        status: 'DRAFT',
        slug: 'northern-lights',
        data: {
          title: { en: 'Northern lights' },
          code: 'NL-1',
          body: 'Green skies over **Tromsø**.',
          price: 12.5,
          stock: 7,
          featured: true,
          releaseDate: '2026-12-01',
          launchAt: launch,
          contact: 'desk@example.com',
          website: 'https://example.com/lights',
          category: 'review',
          tags: ['night', 'sky'],
          meta: { pages: 3, sources: ['NOAA'] },
          author: grace,
          related: [alan, ada],
        },
      });
      const file = await run.t.call('GET', `/v1/${projectId}/files/${coverId}`);
      expect(file.json).toMatchObject({ name: 'aurora.png', mimeType: 'image/png' });
      // Reloaded from the API, the reference and the file still show by name, not id.
      await page.getByRole('list', { name: 'Chosen for Author' }).getByText('Grace Hopper').waitFor();
      await page.getByRole('img', { name: 'Preview of aurora.png' }).waitFor();

      // A second locale, and a value the API refuses (422) shown at its field.
      await page.getByRole('tab', { name: 'de' }).click();
      await page.getByLabel('Title (de)').fill('Nordlichter');
      await page.getByLabel('Price', { exact: true }).fill('-5');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => invalid(page, 'Price')).toBe('true');
      expect(await page.getByRole('alert').first().textContent()).toContain('Price: must be at least 0');
      expect((await readRow(id)).data.title).toEqual({ en: 'Northern lights' });
      await page.getByLabel('Price', { exact: true }).fill('14');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      expect(await invalid(page, 'Price')).not.toBe('true');
      const edited = await readRow(id);
      expect(edited.data).toMatchObject({ title: { en: 'Northern lights', de: 'Nordlichter' }, price: 14, author: grace, cover: coverId });

      // A value another row holds (409) shown at the unique field.
      await page.getByLabel('Code', { exact: true }).fill('TAKEN-1');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => invalid(page, 'Code')).toBe('true');
      expect(await page.getByRole('alert').first().textContent()).toContain('Code: this value already exists in another row');
      await expectAccessible(page, 'content editor with errors');
      await page.getByRole('button', { name: 'Reset changes' }).click();
      expect(await page.getByLabel('Code', { exact: true }).inputValue()).toBe('NL-1');

      // Scheduling: a time a day ahead, in the person's own time zone.
      const later = await localTime(page, 24 * 3600_000);
      await page.getByLabel('Publish at').fill(later.local);
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      await page.getByText(/^publishes /).waitFor();
      expect(await readRow(id)).toMatchObject({ status: 'SCHEDULED', publishAt: later.iso });

      // Publishing now.
      await page.getByRole('button', { name: 'Publish now' }).click();
      await page.getByRole('button', { name: 'Unpublish' }).waitFor();
      const published = await readRow(id);
      expect(published.status).toBe('PUBLISHED');
      expect(published.publishedAt).not.toBeNull();

      // A draft of the published row: saved beside the live values, then published.
      await expect.poll(() => page.getByRole('radio', { name: /Save as a draft/ }).isChecked()).toBe(true);
      await page.getByLabel('Body').fill('Green and violet skies over **Tromsø**.');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('This row has an unpublished draft.', { exact: false }).waitFor();
      const live = await readRow(id);
      expect(live).toMatchObject({ hasDraft: true, status: 'PUBLISHED', data: { body: 'Green skies over **Tromsø**.' } });
      expect((await readRow(id, '?version=draft')).data.body).toBe('Green and violet skies over **Tromsø**.');
      // The form shows the draft's values.
      expect(await page.getByLabel('Body').inputValue()).toBe('Green and violet skies over **Tromsø**.');
      await expectAccessible(page, 'content editor with a draft');
      await screenshot(page, 'content-editor');

      await page.getByRole('button', { name: 'Publish draft' }).click();
      await page.getByRole('status').getByText('Draft published.').waitFor();
      const final = await readRow(id);
      expect(final).toMatchObject({ hasDraft: false, status: 'PUBLISHED', data: { body: 'Green and violet skies over **Tromsø**.', price: 14 } });
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'discards the draft of a published row after confirmation',
    async () => {
      const { page } = run;
      const row = await post(`/tables/${articles}/contents`, { data: { title: 'Live title', body: 'Live body' }, status: 'PUBLISHED' });
      const saved = await run.t.call('PUT', rowPath(row.id), { body: { data: { body: 'Draft body' }, draft: true } });
      expect(saved.status).toBe(200);
      await page.goto(`${base}/tables/${articles}/rows/${row.id}`);
      await page.getByText('This row has an unpublished draft.', { exact: false }).waitFor();
      await expect.poll(() => page.getByLabel('Body').inputValue()).toBe('Draft body');
      // Switching to the published version shows its values.
      await page.getByRole('radio', { name: /Change the published version/ }).focus();
      await page.keyboard.press('Space');
      await expect.poll(() => page.getByLabel('Body').inputValue()).toBe('Live body');
      await page.getByRole('button', { name: 'Discard draft' }).click();
      await page.getByRole('dialog', { name: 'Discard the draft?' }).getByRole('button', { name: 'Discard draft' }).click();
      await page.getByRole('status').getByText('Draft discarded.').waitFor();
      expect(await readRow(row.id)).toMatchObject({ hasDraft: false, data: { body: 'Live body' } });
      await page.goto(`${base}/tables/${articles}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Articles', level: 1 }).waitFor();
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'asks before any in-app navigation leaves unsaved edits: Stay keeps them, Leave goes; the back button too',
    async () => {
      const { page } = run;
      const row = await post(`/tables/${articles}/contents`, { data: { title: 'Guarded' } });
      const rowAddress = new RegExp(`/rows/${row.id}$`);
      // Opened from the list, so that the browser's back button stays in the app.
      await page.goto(`${base}/tables/${articles}`);
      await page.getByRole('row', { name: /Guarded/ }).click();
      await page.getByRole('heading', { name: 'Guarded', level: 1 }).waitFor();
      await page.getByLabel('Title (en)').fill('Guarded, edited');
      await page.getByText('Unsaved changes').waitFor();
      const dialog = page.getByRole('alertdialog', { name: 'Leave without saving?' });
      const sidebar = page.getByRole('navigation', { name: 'Project' });

      // A sidebar table: the dialog, and Stay keeps the page and the edit.
      await sidebar.getByRole('link', { name: 'Authors' }).click();
      await dialog.waitFor();
      await screenshot(page, 'editor-leave-guard');
      await expectAccessible(page, 'the leave dialog');
      await dialog.getByRole('button', { name: 'Stay' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(page.url()).toMatch(rowAddress);
      expect(await page.getByLabel('Title (en)').inputValue()).toBe('Guarded, edited');

      // "All rows" and the project switcher's pages are guarded the same way.
      await page.getByRole('link', { name: 'All rows of Articles' }).click();
      await dialog.getByRole('button', { name: 'Stay' }).click();
      await sidebar.getByRole('link', { name: 'Request logs' }).click();
      await dialog.getByRole('button', { name: 'Stay' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(page.url()).toMatch(rowAddress);
      expect(await page.getByLabel('Title (en)').inputValue()).toBe('Guarded, edited');

      // The browser's back button: asked too, and Stay keeps the address.
      await page.goBack();
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Stay' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(page.url()).toMatch(rowAddress);
      expect(await page.getByLabel('Title (en)').inputValue()).toBe('Guarded, edited');

      // Leave: the list opens and the edit is gone, unsaved.
      await sidebar.getByRole('link', { name: 'Articles' }).click();
      await dialog.getByRole('button', { name: 'Leave' }).click();
      await page.waitForURL(new RegExp(`/tables/${articles}$`));
      expect((await readRow(row.id)).data.title).toEqual({ en: 'Guarded' });

      // With nothing unsaved, nothing is asked; a save clears the guard.
      await page.getByRole('row', { name: /Guarded/ }).click();
      await page.getByLabel('Title (en)').fill('Guarded, saved');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').getByText('Saved.').waitFor();
      await sidebar.getByRole('link', { name: 'Authors' }).click();
      await page.waitForURL(/\/tables\/[\w-]+$/);
      await page.goBack();
      await page.waitForURL(rowAddress);
      expect(await dialog.count()).toBe(0);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'deletes a row after confirmation',
    async () => {
      const { page } = run;
      const row = await post(`/tables/${articles}/contents`, { data: { title: 'Short-lived' } });
      await page.goto(`${base}/tables/${articles}/rows/${row.id}`);
      await page.getByRole('heading', { name: 'Short-lived', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Delete row' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this row?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await run.t.call('GET', rowPath(row.id))).status).toBe(200);
      await page.getByRole('button', { name: 'Delete row' }).click();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.waitForURL(new RegExp(`/tables/${articles}$`));
      expect((await run.t.call('GET', rowPath(row.id))).status).toBe(404);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
