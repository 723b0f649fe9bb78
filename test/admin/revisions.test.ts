import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

let run: ConsoleRun;
beforeAll(async () => {
  run = await openConsole();
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
      await signIn(run);
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

      // Against the current row: what a restore of version 2 would change.
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
});
