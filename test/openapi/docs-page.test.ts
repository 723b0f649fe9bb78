import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** `/docs` in a real headless Chromium: it renders the reference from this origin alone. */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = path.join('test-results', 'docs.png');
const GROUPS = [
  'Accounts', 'Workspaces', 'Workspace Members', 'Projects', 'Project Members', 'API Keys', 'Tables', 'Columns',
  'Contents', 'Categories', 'Variables', 'Translations', 'Files', 'Webhooks', 'Logs', 'Metrics',
];

let t: TestApi;
let browser: Browser;
beforeAll(async () => {
  // CI installs Chromium (.ci/run); a missing browser is a broken setup, not a reason to skip.
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`).toBe(true);
  t = await startTestApi();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs', () => {
  it('renders the resource groups and the contents list operation, with no request leaving the origin', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const origin = new URL(t.url).origin;
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:')) problems.push(`request to ${url}`);
    });

    const response = await page.goto(`${t.url}/docs/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 20_000 });
    expect(await page.title()).toBe('Tabula API reference');
    await expect.poll(() => page.locator('.swagger-ui .info .title').innerText()).toContain('Tabula API');

    // Each resource group is a section headed by its tag (swagger-ui puts the name in data-tag).
    const tags = await page.locator('.opblock-tag-section h3.opblock-tag').evaluateAll((heads) => heads.map((h) => h.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(GROUPS));
    expect(await page.locator('h3.opblock-tag[data-tag="Contents"]').innerText()).toContain('Read keys see PUBLISHED rows only');

    // The list operation of contents, inside the Contents group, with its summary.
    const contents = page.locator('.opblock-tag-section').filter({ has: page.locator('.opblock-tag', { hasText: /^Contents/ }) });
    const list = contents.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path', { hasText: '/{projectId}/tables/{tableId}/contents' }) }).first();
    await list.waitFor();
    expect(await list.locator('.opblock-summary-path').innerText()).toMatch(/^\/\{projectId\}\/tables\/\{tableId\}\/contents$/);
    expect(await list.innerText()).toContain('List contents');

    // Opened, it shows the documented parameters (sort and filter with their JSON shapes).
    await list.locator('.opblock-summary').click();
    const filter = list.locator('tr[data-param-name="filter"]');
    await filter.waitFor();
    expect(await filter.innerText()).toContain('"w": operator');
    expect(await list.locator('tr[data-param-name="sort"]').innerText()).toContain('"o": "asc" | "desc"');

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
