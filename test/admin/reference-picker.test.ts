import type { Page, Request, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * The reference picker while its search is slow (docs/console.md, "The reference picker"): the
 * search's answer is held back by the test (page.route on the tRPC call), so what the picker offers
 * before, during and after it is deterministic. Options are only ever the answer for the text typed;
 * an answer to an older text never replaces a newer one; Enter without a highlighted option keeps
 * the text and says why, or picks the one row named exactly by it.
 */
let run: ConsoleRun;
let projectId: string;
let base: string;
let articles: string;
let ada: string;

const NEWER = ['Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Margaret Hamilton', 'Ken Thompson', 'Frances Allen'];

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const res = await run.t.call('POST', `/v1/${projectId}${path}`, { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** The `search` of each contents.list call in a tRPC request (batched calls share one request). */
function searchesOf(request: Request): string[] {
  const url = new URL(request.url());
  if (!url.pathname.includes('contents.list')) return [];
  const input = JSON.parse(url.searchParams.get('input') ?? '{}') as Record<string, { search?: string } | undefined>;
  return Object.values(input).map((call) => call?.search ?? '');
}

/**
 * Holds back every call searching for `text` until `release()`; `sent` resolves when the first
 * such call has left the page.
 */
const holds: (() => void)[] = [];
async function holdSearch(page: Page, text: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  holds.push(release);
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const handler = async (route: Route) => {
    if (searchesOf(route.request()).includes(text)) {
      markSent();
      await gate;
    }
    await route.fallback();
  };
  await page.route('**/trpc/**', handler);
  return {
    sent,
    release,
    stop: () => page.unroute('**/trpc/**', handler),
  };
}

/**
 * The rows that can be picked: enabled options with an id (an empty list's message is an option
 * too, without one).
 */
const options = (page: Page) => page.locator('[role="option"][id]:not([aria-disabled="true"])').allTextContents();
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });

beforeAll(async () => {
  run = await openConsole();
  ({ projectId, base } = await seedProject(run.t));
  const authors = await post('/tables', { key: 'authors', name: 'Authors' });
  await post(`/tables/${authors.id}/columns`, { name: 'name', label: 'Name', type: 'text' });
  // Ada first: the unfiltered list (newest first) never starts with her.
  ada = (await post(`/tables/${authors.id}/contents`, { data: { name: 'Ada Lovelace' } })).id;
  for (const name of NEWER) await post(`/tables/${authors.id}/contents`, { data: { name } });
  articles = (await post('/tables', { key: 'articles', name: 'Articles' })).id;
  await post(`/tables/${articles}/columns`, { name: 'title', label: 'Title', type: 'text', settings: { required: true } });
  await post(`/tables/${articles}/columns`, { name: 'author', label: 'Author', type: 'reference', settings: { table: 'authors' } });
  await signIn(run);
}, BROWSER_TEST_MS);
afterEach(async () => {
  // A failed step leaves no call held for the next test.
  for (const release of holds.splice(0)) release();
  await run?.page.unrouteAll({ behavior: 'ignoreErrors' });
});
afterAll(async () => {
  await run?.close();
});

describe('the reference picker', () => {
  it(
    'offers nothing selectable until the search for the typed text answers, then only its matches',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${articles}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Articles', level: 1 }).waitFor();
      await page.getByLabel('Title').fill('Notes on the engine');
      const author = page.getByRole('combobox', { name: 'Author' });
      // The unfiltered list first, newest first.
      await author.click();
      await page.getByRole('button', { name: 'Show Authors' }).click();
      await poll(() => options(page)).toContain('Frances Allen');
      await page.keyboard.press('Escape');

      const held = await holdSearch(page, 'ada');
      await author.fill('ada');
      await held.sent;
      // The search is out and has not answered: the old list is not offered, the wait is said.
      await page.getByText('Searching…').first().waitFor();
      expect(await options(page)).toEqual([]);
      await author.press('ArrowDown');
      await author.press('Enter');
      // Enter picked nothing, kept the text, and says why.
      await page.getByText('No row chosen yet: the search is still running.').waitFor();
      await screenshot(page, 'reference-picker-searching');
      expect(await page.getByRole('list', { name: 'Chosen for Author' }).count()).toBe(0);
      expect(await author.inputValue()).toBe('ada');

      held.release();
      // Once the answer is in (the field no longer says it is searching), ↓ opens the list on its
      // first option, the search's only match.
      await page.getByText('A row of Authors.').waitFor();
      await author.press('ArrowDown');
      await poll(() => options(page)).toEqual(['Ada Lovelace']);
      await author.press('Enter');
      await page.getByRole('list', { name: 'Chosen for Author' }).getByText('Ada Lovelace').waitFor();
      await held.stop();

      await page.getByRole('button', { name: 'Create row' }).click();
      await page.waitForURL((url) => /\/rows\/[\w-]+$/.test(url.pathname) && !url.pathname.endsWith('/new'));
      const id = page.url().split('/rows/')[1];
      const row = await run.t.call('GET', `/v1/${projectId}/tables/${articles}/contents/${id}`);
      expect(row.status, row.text).toBe(200);
      expect(row.json.data.author).toBe(ada);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'never lets an answer to older text replace the answer to newer text',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${articles}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Articles', level: 1 }).waitFor();
      const author = page.getByRole('combobox', { name: 'Author' });
      const held = await holdSearch(page, 'grace');
      await author.fill('grace');
      await held.sent;
      await author.fill('ada');
      await poll(() => options(page)).toEqual(['Ada Lovelace']);
      const late = page.waitForResponse((response) => searchesOf(response.request()).includes('grace'));
      held.release();
      await late;
      // The late answer is kept for its own text, not shown for this one.
      await page.evaluate(() => {
        const frame = (globalThis as unknown as { requestAnimationFrame(callback: () => void): void }).requestAnimationFrame.bind(globalThis);
        return new Promise<void>((resolve) => frame(() => frame(resolve)));
      });
      expect(await options(page)).toEqual(['Ada Lovelace']);
      await held.stop();
    },
    BROWSER_TEST_MS,
  );

  it(
    'on Enter with no option highlighted keeps the text and says so, or picks the one row named exactly',
    async () => {
      const { page } = run;
      await page.goto(`${base}/tables/${articles}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Articles', level: 1 }).waitFor();
      const author = page.getByRole('combobox', { name: 'Author' });
      await author.fill('ada');
      await poll(() => options(page)).toEqual(['Ada Lovelace']);
      await author.press('Enter');
      // Not an exact name: nothing is chosen, the text stays, and the picker says what to do.
      expect(await author.inputValue()).toBe('ada');
      await page.getByText('No row chosen: pick one from the list (↓, then Enter).').waitFor();
      expect(await page.getByRole('list', { name: 'Chosen for Author' }).count()).toBe(0);
      await screenshot(page, 'reference-picker-enter');

      // The exact name of one row, once its search has answered: Enter picks it.
      await author.fill('grace hopper');
      await poll(() => options(page)).toEqual(['Grace Hopper']);
      await author.press('Enter');
      await page.getByRole('list', { name: 'Chosen for Author' }).getByText('Grace Hopper').waitFor();
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
  it(
    'searches the referenced table by its display columns (settings.display), by mouse and keyboard, and names rows by the display',
    async () => {
      const { page } = run;
      // Spices labelled "No. {{number}}: {{name}}": an integer the full-text search does not see,
      // and names found by any part (the full-text search matches words and prefixes only).
      const spices = await post('/tables', { key: 'spices', name: 'Spices' });
      await post(`/tables/${spices.id}/columns`, { name: 'name', label: 'Name', type: 'text' });
      await post(`/tables/${spices.id}/columns`, { name: 'number', label: 'Number', type: 'integer' });
      const displayed = await run.t.call('PUT', `/v1/${projectId}/tables/${spices.id}`, { body: { settings: { display: 'No. {{number}}: {{name}}' } } });
      expect(displayed.status, displayed.text).toBe(200);
      const pepper = await post(`/tables/${spices.id}/contents`, { data: { name: 'Black pepper', number: 42 } });
      await post(`/tables/${spices.id}/contents`, { data: { name: 'Saffron', number: 7 } });
      await post(`/tables/${spices.id}/contents`, { data: { name: 'Sweet paprika', number: 420 } });
      const dishes = await post('/tables', { key: 'dishes', name: 'Dishes', defaultStatus: 'DRAFT' });
      await post(`/tables/${dishes.id}/columns`, { name: 'title', label: 'Title', type: 'text' });
      await post(`/tables/${dishes.id}/columns`, { name: 'spice', label: 'Spice', type: 'reference', settings: { table: 'spices' } });

      await page.goto(`${base}/tables/${dishes.id}/rows/new`);
      await page.getByRole('heading', { name: 'New row in Dishes', level: 1 }).waitFor();
      const spice = page.getByRole('combobox', { name: 'Spice' });
      // By the number, with the keyboard.
      await spice.focus();
      await page.keyboard.type('42');
      await poll(() => options(page)).toEqual(['No. 42: Black pepper']);
      // By the inside of a name, with the mouse.
      await spice.fill('prik');
      await poll(() => options(page)).toEqual(['No. 420: Sweet paprika']);
      await spice.fill('eppe');
      await poll(() => options(page)).toEqual(['No. 42: Black pepper']);
      await screenshot(page, 'reference-picker-display');
      await page.getByRole('option', { name: 'No. 42: Black pepper' }).click();
      await page.getByRole('list', { name: 'Chosen for Spice' }).getByText('No. 42: Black pepper').waitFor();
      // (Checked with the list closed: an open list hides the rest of the page from assistive technology.)
      await expectAccessibleInBothThemes(page, 'the reference picker with a row chosen by its display', 'reference-picker-display-chosen');
      // Saved, the reference holds the row's id.
      await page.getByLabel('Title').fill('Pasta');
      await page.getByRole('button', { name: 'Create row' }).click();
      await page.waitForURL(/\/rows\/[0-9a-f-]{36}$/);
      const id = page.url().split('/rows/')[1];
      const saved = await run.t.call('GET', `/v1/${projectId}/tables/dishes/contents/${id}`);
      expect(saved.json.data.spice).toBe(pepper.id);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
