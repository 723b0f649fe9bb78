import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * The releases pages (docs/releases.md) used as a person would: the list, a new release, a
 * release's items with whether each would pass, removing the one that would not, scheduling,
 * unscheduling and publishing now. Each step is checked through the REST API.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let posts: string;
let launch: string;
const rows: string[] = [];

async function call(method: string, path: string, body?: unknown) {
  const res = await run.t.call(method, `/v1/${projectId}${path}`, body === undefined ? {} : { body });
  expect(res.status, res.text).toBeLessThan(300);
  return res.json;
}

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  posts = (await call('POST', '/tables', { key: 'posts', name: 'Posts', defaultStatus: 'DRAFT' })).id;
  await call('POST', `/tables/${posts}/columns`, { name: 'title', label: 'Title', type: 'text' });
  for (const title of ['Alpha', 'Beta', 'Gamma']) rows.push((await call('POST', `/tables/${posts}/contents`, { data: { title } })).id);
  await call('PUT', `/tables/${posts}/contents/${rows[2]}`, { status: 'ARCHIVED' });
  launch = (await call('POST', '/releases', { name: 'Launch' })).id;
  for (const id of rows) await call('POST', `/releases/${launch}/items`, { tableId: posts, contentsId: id, action: 'publish' });
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('releases pages', () => {
  it(
    'lists releases and creates one',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables`);
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Releases' }).click();
      await page.getByRole('heading', { name: 'Releases', level: 1 }).waitFor();
      await page.getByRole('table', { name: 'Releases' }).getByRole('link', { name: 'Launch' }).waitFor();
      await page.getByRole('button', { name: 'New release' }).click();
      const dialog = page.getByRole('dialog', { name: 'New release' });
      await dialog.getByLabel('Name').fill('Autumn');
      await dialog.getByLabel('Name').press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('link', { name: 'Autumn' }).waitFor();
      expect((await call('GET', '/releases')).list.map((r: { name: string }) => r.name)).toEqual(['Autumn', 'Launch']);
      await screenshot(page, 'releases');
      await expectAccessible(page, 'the releases list');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    "shows each item's check, removes the failing one, schedules, unschedules and publishes now",
    async () => {
      const { page } = run;
      await page.getByRole('link', { name: 'Launch' }).click();
      await page.getByRole('heading', { name: 'Launch', level: 1 }).waitFor();
      await page.getByText('1 of 3 items would not pass now').waitFor();
      const items = page.getByRole('table', { name: 'Items' });
      await items.getByRole('row', { name: rows[2] }).getByText(/^No: /).waitFor();
      await screenshot(page, 'release-detail');
      await expectAccessible(page, 'a release');

      await items.getByRole('button', { name: `Remove ${rows[2]} from the release` }).click();
      await page.getByText('All 2 items would pass now.').waitFor();
      expect((await call('GET', `/releases/${launch}`)).items).toHaveLength(2);

      await page.getByLabel('Publish at').fill('2031-05-06T07:08');
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      await page.getByRole('heading', { name: /^Scheduled for/ }).waitFor();
      const expected = await page.evaluate('new Date("2031-05-06T07:08").toISOString()');
      expect((await call('GET', `/releases/${launch}`)).publishAt).toBe(expected);
      await page.getByRole('button', { name: 'Unschedule' }).click();
      await page.getByRole('heading', { name: 'Open', level: 2 }).waitFor();
      expect((await call('GET', `/releases/${launch}`)).publishAt).toBeNull();

      await page.getByRole('button', { name: 'Publish now' }).click();
      await page.getByRole('alertdialog', { name: 'Publish this release now?' }).or(page.getByRole('dialog', { name: 'Publish this release now?' })).getByRole('button', { name: 'Publish' }).click();
      await page.getByText('Release published.').waitFor();
      await page.getByRole('heading', { name: /^Published/ }).waitFor();
      for (const id of rows.slice(0, 2)) expect((await call('GET', `/tables/${posts}/contents/${id}`)).status).toBe('PUBLISHED');
      expect((await call('GET', `/tables/${posts}/contents/${rows[2]}`)).status).toBe('ARCHIVED');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
