import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * The schema page (docs/console.md#schema): this project compared with another of its workspace,
 * the plan shown with its destructive change flagged and counted, a dry run, then the apply,
 * offered only once the destructive change is confirmed by name; checked through the API.
 */
let run: ConsoleRun;
let seeded: Awaited<ReturnType<typeof seedProject>>;

const column = (projectId: string, table: string, body: object) => run.t.call('POST', `/v1/${projectId}/tables/${table}/columns`, { body });

beforeAll(async () => {
  run = await openConsole();
  const { t } = run;
  seeded = await seedProject(t);
  // This project: books(title, isbn) with three rows.
  expect((await t.call('POST', `/v1/${seeded.projectId}/tables`, { body: { key: 'books', name: 'Books' } })).status).toBe(201);
  expect((await column(seeded.projectId, 'books', { name: 'title', label: 'Title', type: 'text' })).status).toBe(201);
  expect((await column(seeded.projectId, 'books', { name: 'isbn', label: 'ISBN', type: 'text' })).status).toBe(201);
  for (let i = 1; i <= 3; i++) {
    expect((await t.call('POST', `/v1/${seeded.projectId}/tables/books/contents`, { body: { data: { title: `Book ${i}`, isbn: `isbn-${i}` } } })).status).toBe(201);
  }
  // The other one: books(title, pages) and authors(name), no isbn.
  const staging = await t.call('POST', `/v1/workspaces/${seeded.workspaceId}/projects`, { body: { name: 'Staging', locales: ['en', 'de'] } });
  expect(staging.status).toBe(201);
  const other = staging.json.id as string;
  expect((await t.call('POST', `/v1/${other}/tables`, { body: { key: 'books', name: 'Books' } })).status).toBe(201);
  expect((await column(other, 'books', { name: 'title', label: 'Title', type: 'text' })).status).toBe(201);
  expect((await column(other, 'books', { name: 'pages', label: 'Pages', type: 'number' })).status).toBe(201);
  expect((await t.call('POST', `/v1/${other}/tables`, { body: { key: 'authors', name: 'Authors' } })).status).toBe(201);
  expect((await column(other, 'authors', { name: 'name', label: 'Name', type: 'text' })).status).toBe(201);
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('schema page', () => {
  it(
    'compares with another project, flags the destructive change with its rows, and applies after a dry run and its confirmation',
    async () => {
      const { page } = run;
      await page.goto(`${seeded.base}/tables`);
      await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Schema' }).click();
      await page.getByRole('heading', { name: 'Schema', level: 1 }).waitFor();
      await page.getByRole('button', { name: /Compare with project/ }).click();
      await page.getByRole('option', { name: 'Staging' }).click();
      await page.getByRole('button', { name: 'Compare', exact: true }).click();

      const plan = page.getByRole('table', { name: 'Plan' });
      await plan.waitFor();
      const rows = await plan.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
      expect(rows).toEqual(
        expect.arrayContaining([
          ['Create table', 'authors'],
          ['Add column', 'books.pages'],
          ['Drop column', 'books.isbn'],
        ]),
      );
      const drop = plan.getByRole('row').filter({ hasText: 'books.isbn' });
      await drop.getByText('Destructive: 3 rows').waitFor();
      const dryRun = page.getByRole('button', { name: 'Dry run' });
      const apply = page.getByRole('button', { name: /^Apply \d+ changes$/ });
      expect(await dryRun.isDisabled()).toBe(true);
      expect(await apply.isDisabled()).toBe(true);
      await expectAccessibleInBothThemes(page, 'schema plan', 'schema');

      // Confirmed by keyboard: the box names the change.
      const confirm = drop.getByRole('checkbox', { name: 'I accept to drop column books.isbn' });
      await confirm.focus();
      await page.keyboard.press('Space');
      expect(await confirm.isChecked()).toBe(true);
      await dryRun.click();
      await page.getByRole('status').filter({ hasText: 'Dry run passed' }).waitFor();
      // The dry run changed nothing.
      const before = await run.t.call('GET', `/v1/${seeded.projectId}/schema`);
      expect(before.json.tables.map((t: { key: string }) => t.key)).toEqual(['books']);

      await apply.click();
      await page.getByRole('status').filter({ hasText: /^Applied \d+ changes\.$/ }).waitFor();
      await page.getByText('Nothing to change: the schemas are the same.').waitFor();
      const after = await run.t.call('GET', `/v1/${seeded.projectId}/schema`);
      expect(after.json.tables.map((t: { key: string; columns: { name: string }[] }) => [t.key, t.columns.map((c) => c.name)])).toEqual([
        ['authors', ['name']],
        ['books', ['title', 'pages']],
      ]);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
