import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import { rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { createLogger } from '../../src/shared/logger.js';
import { until } from '../helpers/until.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { BROWSER_TEST_MS, expectAccessible, expectAccessibleInBothThemes, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

let run: ConsoleRun;
let workers: RunningWorkers;
let pool: pg.Pool;
let seeded: Awaited<ReturnType<typeof seedProject>>;
let key: { id: string; key: string };

/** Requests made with the key: 6 reads (200), 3 of a missing table (404), 1 write refused (403). */
const OK = 6;
const MISSING = 3;

beforeAll(async () => {
  run = await openConsole();
  // The log-ingest worker, as in test/logs; the rollup (a minutely job) is run by hand below.
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), run.t.db.url, createLogger('silent'), ['request-logs']);
  pool = createPool(run.t.db.url, 2, createLogger('silent'));
  const { t } = run;
  seeded = await seedProject(t);
  const created = await t.call('POST', `/v1/${seeded.projectId}/api-keys`, { body: { name: 'website', permission: 'read' } });
  expect(created.status).toBe(201);
  key = created.json;
  for (let i = 0; i < OK; i++) expect((await t.call('GET', `/v1/${seeded.projectId}/tables`, { token: key.key })).status).toBe(200);
  for (let i = 0; i < MISSING; i++) expect((await t.call('GET', `/v1/${seeded.projectId}/tables/nope`, { token: key.key })).status).toBe(404);
  expect((await t.call('POST', `/v1/${seeded.projectId}/tables`, { token: key.key, body: { key: 'x', name: 'X' } })).status).toBe(403);
  // Logged within about a second (docs/logs-and-metrics.md#request-logs): wait for all ten through the API itself.
  await until(async () => (await t.call('GET', `/v1/${seeded.projectId}/logs?apiKeyId=${key.id}`)).json.pagination.total === OK + MISSING + 1, 15_000, "the key's requests in the log", 250);
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await workers?.stop(2_000);
  await pool?.end();
  await run?.close();
});

describe('request logs page', () => {
  it(
    'lists the requests, filters by status and by key, and opens one to its details',
    async () => {
      const { page } = run;
      await page.goto(`${seeded.base}/logs`);
      await page.getByRole('heading', { name: 'Request logs', level: 1 }).waitFor();
      const requests = page.getByRole('table', { name: 'Requests' });
      await requests.getByRole('row').filter({ hasText: '/tables/nope' }).first().waitFor();

      await page.getByLabel('Status').fill('404');
      await page.getByRole('button', { name: /API key/ }).click();
      await page.getByRole('option', { name: 'website' }).click();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => requests.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual(Array(MISSING).fill('404'));
      expect(await requests.locator('tbody tr td:nth-child(7)').allTextContents()).toEqual(Array(MISSING).fill('website'));
      await page.getByText(`Page 1 of 1 · ${MISSING} items`).waitFor();

      // By method: the one refused write.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('button', { name: /Method/ }).click();
      await page.getByRole('option', { name: 'POST' }).click();
      await page.getByRole('button', { name: /API key/ }).click();
      await page.getByRole('option', { name: 'website' }).click();
      await page.keyboard.press('Tab');
      await page.getByLabel('Status').press('Enter');
      await expect.poll(() => requests.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual(['403']);

      // A row opens to every field of its entry, by keyboard.
      const toggle = requests.getByRole('button', { name: /^Details of POST/ });
      await toggle.focus();
      await page.keyboard.press('Enter');
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const details = requests.locator('.ops-details');
      await details.getByText('User agent').waitFor();
      expect(await details.textContent()).toContain(key.id);
      expect(await details.textContent()).toContain('127.0.0.1');

      // A malformed status is refused at its field, without a request.
      await page.getByLabel('Status').fill('4040');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(await page.getByLabel('Status').getAttribute('aria-invalid')).toBe('true');

      // Cleared: every request again (the console's own calls too), the opened row still open.
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => requests.locator('tbody tr td:nth-child(5)').count()).toBeGreaterThan(OK + MISSING + 1);
      await details.getByText('User agent').waitFor();
      await expectAccessible(page, 'logs');
      await screenshot(page, 'logs');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('request logs page: path and console calls', () => {
  it(
    "filters by path, and marks, hides or shows only the console's own calls",
    async () => {
      const { page } = run;
      await page.goto(`${seeded.base}/logs`);
      const requests = page.getByRole('table', { name: 'Requests' });
      await requests.locator('tbody tr').first().waitFor();
      const paths = () => requests.locator('tbody tr td:nth-child(4)').allTextContents();
      const credentials = () => requests.locator('tbody tr td:nth-child(7)').allTextContents();

      await page.getByLabel('Path contains').fill('/tables/nope');
      await page.keyboard.press('Enter');
      await expect.poll(paths).toEqual(Array(MISSING).fill(`/v1/${seeded.projectId}/tables/nope`));
      // Not counted (the path is in the stored entries only): no total, and no next page.
      await page.getByText(/^Page 1 of 1$/).waitFor();
      expect(await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

      // The console's calls (its own tRPC reads of this page), marked on each line.
      await page.getByLabel('Path contains').fill('');
      await page.getByRole('button', { name: /Console calls/ }).click();
      await page.getByRole('option', { name: 'Only these' }).click();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(async () => (await paths()).length > 0 && (await paths()).every((path) => path.startsWith('/trpc/'))).toBe(true);
      expect((await credentials()).every((text) => text === 'Account token Console')).toBe(true);
      await screenshot(page, 'logs-console');

      // Hidden, by keyboard: the key's requests and no line of the console.
      await page.getByRole('button', { name: /Console calls/ }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('option', { name: 'Hidden' }).waitFor();
      await page.getByRole('option', { name: 'Hidden' }).press('Enter');
      await page.getByRole('button', { name: 'Apply filters' }).press('Enter');
      await expect.poll(async () => (await credentials()).filter((text) => text === 'website').length).toBe(OK + MISSING + 1);
      expect((await credentials()).some((text) => text.includes('Console'))).toBe(false);
      await expectAccessibleInBothThemes(page, 'logs without the console', 'logs-filtered');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('usage page', () => {
  it(
    "charts a workspace's and a project's requests from the rollups, with the numbers as tables",
    async () => {
      const { page } = run;
      await rollUpRequestLogs(pool);
      await page.goto(`${run.t.url}/admin/w/${seeded.workspaceId}/metrics`);
      await page.getByRole('heading', { name: 'Usage of Editorial', level: 1 }).waitFor();
      const requestsFigure = page.getByRole('figure', { name: 'Requests and errors' });
      await requestsFigure.waitFor();
      // The charts are drawn (recharts' lines and bars), with the data in them.
      await requestsFigure.locator('.recharts-line-curve').first().waitFor();
      await page.getByRole('figure', { name: 'Requests per project' }).locator('.recharts-bar-rectangle').first().waitFor();
      await page.getByRole('figure', { name: 'Requests per API key' }).locator('.recharts-bar-rectangle').first().waitFor();
      // All requests fell in one hour: the latency lines are single points, drawn as dots.
      await page.getByRole('figure', { name: 'Latency (p95 and median)' }).locator('.recharts-line-dots circle').first().waitFor();

      // The numbers behind the per-key bars: the key's ten requests, four of them errors.
      const keyFigure = page.getByRole('figure', { name: 'Requests per API key' });
      await keyFigure.getByText('Numbers: Requests per API key').click();
      expect(await keyFigure.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['website', String(OK + MISSING + 1), String(MISSING + 1)]);
      await expectAccessible(page, 'workspace usage');
      await screenshot(page, 'metrics-workspace');

      // The project's page: its own figures; the key filter narrows the series to the key.
      await page.goto(`${seeded.base}/metrics`);
      await page.getByRole('heading', { name: 'Usage of Magazine', level: 1 }).waitFor();
      await page.getByRole('figure', { name: 'Requests per API key' }).locator('.recharts-bar-rectangle').first().waitFor();
      expect(await page.getByRole('figure', { name: 'Requests per project' }).count()).toBe(0);
      await page.getByRole('button', { name: /API key/ }).click();
      await page.getByRole('option', { name: 'website' }).click();
      const keyed = page.getByRole('figure', { name: 'Requests and errors with the key “website”' });
      await keyed.waitFor();
      await keyed.getByText(/^Numbers:/).click();
      // The caption names the key at once; the narrowed numbers follow when the read answers.
      const keyedTotal = async () => (await keyed.locator('tbody tr td:nth-child(2)').allTextContents()).map(Number).reduce((a, b) => a + b, 0);
      await expect.poll(keyedTotal).toBe(OK + MISSING + 1);
      await expect.poll(() => page.getByRole('list', { name: 'Totals' }).textContent()).toContain(String(OK + MISSING + 1));

      // Thirty days, by day.
      await page.getByRole('button', { name: /Range/ }).click();
      await page.getByRole('option', { name: 'Last 30 days' }).click();
      await expect.poll(() => keyed.locator('tbody tr').count()).toBe(30);
      await keyed.getByText(/^Numbers:/).click();

      // Back to the last 24 hours of every request, as the page opens.
      await page.getByRole('button', { name: /Range/ }).click();
      await page.getByRole('option', { name: 'Last 24 hours' }).click();
      await page.getByRole('button', { name: /API key/ }).click();
      await page.getByRole('option', { name: 'All requests' }).click();
      await page.getByRole('figure', { name: 'Requests and errors' }).locator('.recharts-line-curve').first().waitFor();

      await expectAccessible(page, 'project usage');
      await screenshot(page, 'metrics');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
