import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * A `longtext` column with `settings.format: "markdown"` is edited with a sanitized preview
 * (docs/console.md#markdown). Hostile content (a script tag, an image with onerror, javascript:
 * links) shown in the list, the editor and the preview runs nothing: a window flag the payloads
 * would set stays unset and no dialog opens.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let pages: string;
let rowId: string;

const HOSTILE_TITLE = '<img src=x onerror="window.__xss=1;alert(1)">Title';
const HOSTILE_BODY = [
  '# Hello',
  '<script>window.__xss = 1; alert(1)</script>',
  '<img src=x onerror="window.__xss=1;alert(1)">',
  '[click me](javascript:window.__xss=1)',
  '[tab trick](java\tscript:window.__xss=1)',
  '[data](data:text/html,<script>window.__xss=1</script>)',
  '**bold** and *italic* and [safe](https://example.com/a) and `code`',
  '',
  '- one',
  '- two',
].join('\n');

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  pages = (await run.t.call('POST', `/v1/${projectId}/tables`, { body: { key: 'pages', name: 'Pages', defaultStatus: 'DRAFT' } })).json.id;
  for (const column of [
    { name: 'title', label: 'Title', type: 'text' },
    { name: 'body', label: 'Body', type: 'longtext', settings: { format: 'markdown' } },
  ]) {
    expect((await run.t.call('POST', `/v1/${projectId}/tables/${pages}/columns`, { body: column })).status).toBe(201);
  }
  rowId = (await run.t.call('POST', `/v1/${projectId}/tables/${pages}/contents`, { body: { data: { title: HOSTILE_TITLE, body: HOSTILE_BODY } } })).json.id;
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('the Markdown editor', () => {
  it(
    'shows hostile content in the list, the editor and the preview without running any of it',
    async () => {
      const { page } = run;
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const flag = () => page.evaluate('window.__xss');

      await page.goto(`${base}/tables/${pages}`);
      // The list shows the title as text (its <img> is no element).
      const listed = page.locator(`tr[data-key="${rowId}"]`);
      await listed.getByText(HOSTILE_TITLE).waitFor();
      expect(await page.locator('table[role="grid"] img').count()).toBe(0);
      await listed.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/rows/${rowId}$`));

      const preview = page.getByRole('region', { name: 'Preview of Body' });
      await preview.getByRole('heading', { name: 'Hello' }).waitFor();
      // Raw HTML is text; the javascript: and data: links are no links; the safe one is.
      await preview.getByText('<script>window.__xss = 1; alert(1)</script>').waitFor();
      expect(await preview.locator('script, img, iframe').count()).toBe(0);
      expect(await preview.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual(['https://example.com/a']);
      await preview.getByText('click me').click();
      await preview.getByText('tab trick').click();
      expect(await preview.locator('strong').textContent()).toBe('bold');
      expect(await preview.locator('li').allTextContents()).toEqual(['one', 'two']);
      expect(await page.getByLabel('Title').inputValue()).toBe(HOSTILE_TITLE);

      // Typing updates the preview.
      const body = page.getByLabel('Body', { exact: true });
      await body.press('End');
      await body.press('Control+End');
      await page.keyboard.type('\n\n## Added <b onmouseover="window.__xss=1">here</b>');
      await preview.getByRole('heading', { name: 'Added <b onmouseover="window.__xss=1">here</b>' }).waitFor();
      await preview.hover();
      await screenshot(page, 'editor-markdown');
      await expectAccessible(page, 'the Markdown editor');

      expect(await flag()).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
