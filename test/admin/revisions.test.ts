import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

let run: ConsoleRun;
beforeAll(async () => {
  run = await openConsole();
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

/** Asserts the status of a REST call and answers its body. */
async function expectCall(method: string, path: string, status: number, options: { body?: unknown; token?: string } = {}) {
  const res = await run.t.call(method, path, options);
  expect(res.status, res.text).toBe(status);
  return res.json;
}

/**
 * A row with twelve versions, made through the REST API: created (v1), edited by an account
 * (v2), published with a new body (v3), edited by an API key (v4, the German title too), then eight price changes
 * (v5..v12), so that the panel's list has a second page.
 */
async function seedRow() {
  const { projectId, base } = await seedProject(run.t);
  const table = await expectCall('POST', `/v1/${projectId}/tables`, 201, { body: { key: 'articles', name: 'Articles', defaultStatus: 'DRAFT' } });
  const columns = `/v1/${projectId}/tables/${table.id}/columns`;
  await expectCall('POST', columns, 201, { body: { name: 'title', label: 'Headline', type: 'text', settings: { localized: true } } });
  await expectCall('POST', columns, 201, { body: { name: 'body', label: 'Body text', type: 'longtext' } });
  await expectCall('POST', columns, 201, { body: { name: 'price', label: 'Price', type: 'number' } });
  await expectCall('POST', columns, 201, { body: { name: 'featured', label: 'Featured', type: 'boolean' } });
  const key = await expectCall('POST', `/v1/${projectId}/api-keys`, 201, { body: { name: 'Importer', permission: 'read_write' } });
  const contents = `/v1/${projectId}/tables/${table.id}/contents`;
  const row = await expectCall('POST', contents, 201, {
    body: { data: { title: { en: 'Spring issue', de: 'Frühlingsausgabe' }, body: 'The first draft of the story.', price: 10, featured: false } },
  });
  const path = `${contents}/${row.id}`;
  await expectCall('PUT', path, 200, { body: { data: { title: { en: 'Spring issue 2026', de: 'Frühlingsausgabe' }, price: 12 } } });
  await expectCall('PUT', path, 200, { body: { data: { body: 'The second draft of the story, longer.' }, status: 'PUBLISHED' } });
  await expectCall('PUT', path, 200, { body: { data: { title: { en: 'Spring issue 2026', de: 'Frühlingsausgabe 2026' }, featured: true, price: 15 } }, token: key.key });
  for (let price = 16; price <= 23; price++) await expectCall('PUT', path, 200, { body: { data: { price } } });
  // Prices are unique now, and another row has version 2's: restoring it is refused until that row goes.
  await expectCall('PUT', `${columns}/price`, 200, { body: { settings: { unique: true } } });
  const other = await expectCall('POST', contents, 201, { body: { data: { title: { en: 'Other' }, price: 12 } } });
  return { path, page: `${base}/tables/${table.id}/rows/${row.id}`, other: `${contents}/${other.id}` };
}

describe('the revisions panel of a row', () => {
  it(
    'lists the versions by page, shows diffs against the version before and the current row, and restores one',
    async () => {
      const { page } = run;
      const row = await seedRow();
      await page.goto(row.page);

      const versions = page.getByRole('listbox', { name: 'Versions' });
      await versions.getByRole('option').first().waitFor();
      // Newest first, ten to a page, each saying what was done, by whom and when.
      await expect.poll(() => versions.getByRole('option').count()).toBe(10);
      expect(await versions.getByRole('option').first().textContent()).toMatch(/^Version 12: Edited Published by you · .*2026/);
      expect(await versions.getByRole('option', { name: /^Version 4:/ }).textContent()).toContain('by API key “Importer”');
      await page.getByRole('navigation', { name: 'Pages' }).getByText('Page 1 of 2 · 12 items').waitFor();

      // By keyboard: focus the newest, move down to version 4, choose it.
      await versions.getByRole('option', { name: /^Version 12:/ }).click();
      for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Version 4', level: 3 }).waitFor();
      const changes = page.getByRole('list', { name: 'Changed columns' });
      await expect.poll(() => changes.getByRole('heading', { level: 4 }).allTextContents()).toEqual(['Headline', 'Price', 'Featured']);
      expect(await changes.locator('del.diff-removed').allTextContents()).toEqual(['12', 'No']);
      expect(await changes.locator('ins.diff-added').allTextContents()).toEqual([' 2026', '15', 'Yes']);
      // The unchanged columns are folded away until asked for.
      const unchanged = page.getByRole('button', { name: '1 unchanged column' });
      expect(await unchanged.getAttribute('aria-expanded')).toBe('false');
      await unchanged.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => unchanged.getAttribute('aria-expanded')).toBe('true');
      await page.locator('.revision-unchanged-list').getByText('Body text').waitFor();
      // A status change is said above the columns.
      await versions.getByRole('option', { name: /^Version 3:/ }).click();
      await page.getByRole('heading', { name: 'Version 3', level: 3 }).waitFor();
      await expect.poll(() => page.locator('.revision-status-change').textContent()).toBe('Status: Draft → Published');

      // The second page holds the oldest versions; version 2 against version 1: one locale changed.
      await page.getByRole('button', { name: 'Next' }).click();
      await versions.getByRole('option', { name: /^Version 2:/ }).click();
      await page.getByRole('heading', { name: 'Version 2', level: 3 }).waitFor();
      await expect.poll(() => changes.getByRole('heading', { level: 4 }).allTextContents()).toEqual(['Headline', 'Price']);
      expect(await changes.locator('ins.diff-added').allTextContents()).toEqual([' 2026', '12']);
      expect(await changes.getByText('Frühlingsausgabe').textContent()).toBe('Frühlingsausgabe');

      // Against the current row: what a restore of version 2 would change, onto the live row (the
      // editor's "at once" mode; in its draft mode a restore goes into the draft).
      const atOnce = page.getByRole('radio', { name: /Change the published version at once/ });
      await atOnce.focus();
      await page.keyboard.press('Space');
      await expect.poll(() => atOnce.isChecked()).toBe(true);
      await page.getByRole('radio', { name: 'Version 1 (the one before)' }).focus();
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => page.getByRole('radio', { name: 'The current row' }).isChecked()).toBe(true);
      await page.getByText('What restoring version 2 would change. The status stays Published.').waitFor();
      await expect.poll(() => changes.getByRole('heading', { level: 4 }).allTextContents()).toEqual(['Headline', 'Body text', 'Price', 'Featured']);
      expect(await changes.locator('del.diff-removed').allTextContents()).toEqual([' 2026', 'second', 'story, longer.', '23', 'Yes']);
      await expectAccessible(page, 'revisions');
      await screenshot(page, 'revisions');

      // Restore, after the confirmation.
      await page.getByRole('button', { name: 'Restore this version' }).click();
      const dialog = page.getByRole('dialog', { name: 'Restore version 2?' });
      await dialog.waitFor();
      await dialog.getByText('The restore is recorded as a new version').waitFor();
      await expectAccessible(page, 'revisions restore dialog');
      await dialog.getByRole('button', { name: 'Restore version 2' }).click();
      // The conflict is said in the dialog, at the column's label; nothing changed.
      await dialog.getByRole('alert').getByText('Price: this value already exists in another row').waitFor();
      expect((await expectCall('GET', row.path, 200)).data.price).toBe(23);
      await expectCall('DELETE', row.other, 204);
      await dialog.getByRole('button', { name: 'Restore version 2' }).click();
      await page.getByRole('status').getByText('Version 2 restored').waitFor();
      expect(await dialog.count()).toBe(0);

      const restored = await expectCall('GET', row.path, 200);
      expect(restored.data).toEqual({ title: { en: 'Spring issue 2026', de: 'Frühlingsausgabe' }, body: 'The first draft of the story.', price: 12, featured: false });
      expect(restored.status).toBe('PUBLISHED');
      const history = await expectCall('GET', `${row.path}/revisions?size=1`, 200);
      expect(history.pagination.total).toBe(13);
      expect(history.list[0]).toMatchObject({ version: 13, action: 'restored', status: 'PUBLISHED' });

      // The panel read everything again: the restore heads the list, and version 2 is the row now.
      await versions.getByRole('option', { name: /^Version 13: Restored an earlier version Published by you/ }).waitFor();
      await page.getByText('No column differs.').waitFor();
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'in “Save as a draft” mode restores into the draft of a published row, and names referenced rows and files in the diff',
    async () => {
      const { page } = run;
      const { projectId, base } = await seedProject(run.t);
      const authors = await expectCall('POST', `/v1/${projectId}/tables`, 201, { body: { key: 'authors', name: 'Authors' } });
      await expectCall('POST', `/v1/${projectId}/tables/${authors.id}/columns`, 201, { body: { name: 'name', label: 'Name', type: 'text' } });
      const ada = await expectCall('POST', `/v1/${projectId}/tables/${authors.id}/contents`, 201, { body: { data: { name: 'Ada Lovelace' } } });
      const grace = await expectCall('POST', `/v1/${projectId}/tables/${authors.id}/contents`, 201, { body: { data: { name: 'Grace Hopper' } } });
      const upload = async (name: string) => {
        const form = new FormData();
        form.append('file', new Blob([`the file ${name}`], { type: 'text/plain' }), name);
        const res = await fetch(`${run.t.url}/v1/${projectId}/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${run.t.adminToken}` } });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      };
      const [oldCover, newCover] = [await upload('old-cover.txt'), await upload('new-cover.txt')];
      const issues = await expectCall('POST', `/v1/${projectId}/tables`, 201, { body: { key: 'issues', name: 'Issues' } });
      const columns = `/v1/${projectId}/tables/${issues.id}/columns`;
      await expectCall('POST', columns, 201, { body: { name: 'title', label: 'Title', type: 'text' } });
      await expectCall('POST', columns, 201, { body: { name: 'author', label: 'Author', type: 'reference', settings: { table: authors.id } } });
      await expectCall('POST', columns, 201, { body: { name: 'cover', label: 'Cover', type: 'file' } });
      const path = `/v1/${projectId}/tables/${issues.id}/contents`;
      const row = await expectCall('POST', path, 201, { body: { data: { title: 'Winter issue', author: ada.id, cover: oldCover }, status: 'PUBLISHED' } });
      await expectCall('PUT', `${path}/${row.id}`, 200, { body: { data: { title: 'Winter special', author: grace.id, cover: newCover } } });

      await page.goto(`${base}/tables/${issues.id}/rows/${row.id}`);
      await page.getByRole('radio', { name: /Save as a draft/ }).waitFor();
      expect(await page.getByRole('radio', { name: /Save as a draft/ }).isChecked()).toBe(true);
      const versions = page.getByRole('listbox', { name: 'Versions' });
      await versions.getByRole('option', { name: /^Version 2:/ }).click();
      await page.getByRole('heading', { name: 'Version 2', level: 3 }).waitFor();
      // References by the referenced row's label, files by their name: never the ids.
      const changes = page.getByRole('list', { name: 'Changed columns' });
      await expect.poll(() => changes.locator('del.diff-removed').allTextContents()).toEqual(['issue', 'Ada Lovelace', 'old-cover.txt']);
      expect(await changes.locator('ins.diff-added').allTextContents()).toEqual(['special', 'Grace Hopper', 'new-cover.txt']);
      const shown = await page.locator('.revision-detail').textContent();
      for (const id of [ada.id, grace.id, oldCover, newCover]) expect(shown).not.toContain(id);
      await screenshot(page, 'revision-diff-names');

      await versions.getByRole('option', { name: /^Version 1:/ }).click();
      await page.getByRole('heading', { name: 'Version 1', level: 3 }).waitFor();
      await page.getByRole('button', { name: 'Restore this version' }).click();
      const dialog = page.getByRole('dialog', { name: 'Restore version 1 into the draft?' });
      await dialog.getByText('The published version stays live').waitFor();
      await expectAccessible(page, 'restore into the draft');
      await dialog.getByRole('button', { name: 'Restore version 1' }).click();
      await page.getByRole('status').getByText('Version 1 restored into the draft').waitFor();

      // The live row is as it was, with no new version; the draft holds version 1's values.
      const live = await expectCall('GET', `${path}/${row.id}`, 200);
      expect(live).toMatchObject({ hasDraft: true, status: 'PUBLISHED', data: { title: 'Winter special', author: grace.id, cover: newCover } });
      expect((await expectCall('GET', `${path}/${row.id}?version=draft`, 200)).data).toEqual({ title: 'Winter issue', author: ada.id, cover: oldCover });
      expect((await expectCall('GET', `${path}/${row.id}/revisions`, 200)).pagination.total).toBe(2);
      // The editor shows the draft it now holds.
      await page.getByText('This row has an unpublished draft.', { exact: false }).waitFor();
      await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Winter issue');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
