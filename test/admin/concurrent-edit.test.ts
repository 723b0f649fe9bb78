import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Two people edit one row in two browser contexts (two sessions). The second save over an old
 * version is refused with 412 (docs/contents.md#concurrent-edits); the console says "changed by
 * someone else", shows theirs beside yours per field, and overwrites or reloads as chosen.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let notes: string;
let rowId: string;
let bob: Page;

const rowPath = () => `/v1/${projectId}/tables/${notes}/contents/${rowId}`;
async function readRow() {
  const res = await run.t.call('GET', rowPath());
  expect(res.status).toBe(200);
  return res.json as { version: number; data: Record<string, unknown> };
}

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  const table = await run.t.call('POST', `/v1/${projectId}/tables`, { body: { key: 'notes', name: 'Notes', defaultStatus: 'DRAFT' } });
  notes = table.json.id;
  for (const column of [{ name: 'title', label: 'Title', type: 'text' }, { name: 'body', label: 'Body', type: 'longtext' }]) {
    expect((await run.t.call('POST', `/v1/${projectId}/tables/${notes}/columns`, { body: column })).status).toBe(201);
  }
  rowId = (await run.t.call('POST', `/v1/${projectId}/tables/${notes}/contents`, { body: { data: { title: 'First', body: 'one' } } })).json.id;
  await signIn(run);
  // The second person: a browser context of its own (its own storage, its own session).
  const context = await run.browser.newContext({ viewport: { width: 1360, height: 900 } });
  bob = await context.newPage();
  bob.setDefaultTimeout(20_000);
  bob.on('pageerror', (error) => run.problems.push(`page error (second context): ${error.message}`));
  bob.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) run.problems.push(message.text());
  });
  await bob.goto(`${run.t.url}/admin/`);
  await bob.getByLabel('Account token').fill(run.t.adminToken);
  await bob.keyboard.press('Enter');
  await bob.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('two people editing one row', () => {
  it(
    'the later save is told "changed by someone else", sees theirs beside yours, and overwrites',
    async () => {
      const ann = run.page;
      for (const page of [ann, bob]) {
        await page.goto(`${base}/tables/${notes}/rows/${rowId}`);
        await page.getByRole('heading', { name: 'First', level: 1 }).waitFor();
      }
      // Bob starts typing first, Ann saves first.
      await bob.getByLabel('Title').fill('Bob title');
      await bob.getByText('Unsaved changes').waitFor();
      // The tab names the row, and says it has unsaved edits.
      expect(await ann.title()).toBe('First · Notes · Tabula');
      await expect.poll(() => bob.title()).toBe('• First · Notes · Tabula');
      await ann.getByLabel('Title').fill('Ann title');
      await ann.getByLabel('Title').press('Enter');
      await ann.getByText('Saved.').waitFor();
      expect((await readRow()).data.title).toBe('Ann title');

      await bob.getByRole('button', { name: 'Save', exact: true }).click();
      const dialog = bob.getByRole('alertdialog', { name: 'Changed by someone else' });
      await dialog.waitFor();
      await dialog.getByText('changed by someone else since you opened it').waitFor();
      const diff = dialog.locator('tr[data-field="title"]');
      expect(await diff.locator('td').allTextContents()).toEqual(['Ann title', 'Bob title']);
      // Nothing of Bob's was written.
      expect((await readRow()).data.title).toBe('Ann title');
      await screenshot(bob, 'editor-conflict');
      await expectAccessible(bob, 'the conflict dialog');

      await dialog.getByRole('button', { name: 'Overwrite with mine' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await bob.getByText('Saved.').waitFor();
      const after = await readRow();
      expect(after.data.title).toBe('Bob title');
      expect(after.version).toBe(3);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'reload drops the edits and shows the saved row; Keep editing keeps them',
    async () => {
      await bob.goto(`${base}/tables/${notes}/rows/${rowId}`);
      await bob.getByRole('heading', { name: 'Bob title', level: 1 }).waitFor();
      await bob.getByLabel('Body').fill('Bob body');
      // Someone else (a script) changes the row meanwhile.
      const res = await run.t.call('PUT', rowPath(), { body: { data: { title: 'Script title', body: 'script body' } } });
      expect(res.status).toBe(200);

      // By keyboard: Enter in the title field submits the form.
      await bob.getByLabel('Title').press('Enter');
      const dialog = bob.getByRole('alertdialog', { name: 'Changed by someone else' });
      await dialog.waitFor();
      expect(await dialog.locator('tr[data-field="body"] td').allTextContents()).toEqual(['script body', 'Bob body']);
      // Keep editing: the dialog closes, the edit stays unsaved.
      await bob.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await bob.getByLabel('Body').inputValue()).toBe('Bob body');
      await bob.getByText('Unsaved changes').waitFor();

      await bob.getByRole('button', { name: 'Save', exact: true }).click();
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Reload theirs' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await bob.getByText('Reloaded: you see the saved version.').waitFor();
      await expect.poll(() => bob.getByLabel('Body').inputValue()).toBe('script body');
      expect(await bob.getByLabel('Title').inputValue()).toBe('Script title');
      expect((await readRow()).data.body).toBe('script body');
      expect(await bob.getByText('Unsaved changes').count()).toBe(0);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
