import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestHost, type TestHost } from '../helpers/test-host.js';

/**
 * `/docs` in a real headless Chromium: it renders the reference from this origin alone, on
 * loopback and through a non-loopback address (what a person on another machine opens: an
 * origin Chromium does not treat as secure, where a CSP `upgrade-insecure-requests` would send
 * every stylesheet and script to https and leave the page blank).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOTS = 'test-output';
// Ceilings, not expectations: Swagger UI renders ~100 operations, slowly on a loaded 2-core machine.
const BROWSER_TEST_MS = 180_000;
const PAGE_WAIT_MS = 90_000;
const GROUPS = [
  'Accounts', 'Workspaces', 'Workspace Members', 'Projects', 'Project Members', 'API Keys', 'Roles', 'Tables', 'Columns',
  'Contents', 'Categories', 'Variables', 'Translations', 'Files', 'Webhooks', 'Logs', 'Metrics',
];

let t: TestApi;
let browser: Browser;
/** The network namespace the second browser runs in, when it could be made. */
let testHost: TestHost | undefined;
/** Chromium inside the test host's namespace, or why there is none. */
let remote: { host: TestHost; browser: Browser } | { unavailable: string };

beforeAll(async () => {
  // CI installs Chromium (.ci/run); a missing browser is a broken setup, not a reason to skip.
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`).toBe(true);
  // On every interface, as `npm start` listens by default.
  t = await startTestApi({ HOST: '0.0.0.0' });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const created = await createTestHost();
  if ('unavailable' in created) {
    remote = created;
    return;
  }
  testHost = created.host;
  const executablePath = await testHost.launcherFor(CHROMIUM);
  remote = { host: testHost, browser: await chromium.launch({ executablePath, args: CHROMIUM_ARGS }) };
}, BROWSER_TEST_MS);
afterAll(async () => {
  await browser?.close();
  if (remote && 'browser' in remote) await remote.browser.close();
  await testHost?.close();
  await t?.close();
});

/**
 * Opens `url` (following redirects) and checks that Swagger UI rendered the reference: its
 * title, every resource group, the contents list operation and, opened, its parameters. Every
 * request stays on `origin`, over plain http when the origin is http. Screenshots go to
 * test-output/<screenshot>-top.png (the page as loaded) and <screenshot>.png (as left).
 */
async function expectReferenceRendered(browser: Browser, url: string, origin: string, screenshot: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(PAGE_WAIT_MS);
  page.setDefaultNavigationTimeout(PAGE_WAIT_MS);
  const problems: string[] = [];
  const requested: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => {
    const requestUrl = request.url();
    requested.push(requestUrl);
    if (!requestUrl.startsWith(`${origin}/`) && !requestUrl.startsWith('data:')) problems.push(`request to ${requestUrl}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`));

  try {
    const response = await page.goto(url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(/^\/docs\/?$/);
    // The stylesheet and the scripts were fetched from this origin, none upgraded to https.
    expect(requested).toEqual(expect.arrayContaining([`${origin}/docs/swagger-ui.css`, `${origin}/docs/swagger-ui-bundle.js`, `${origin}/docs/swagger-ui-init.js`]));
    expect(requested.filter((r) => r.startsWith('https:'))).toEqual([]);

    await page.locator('.swagger-ui .info .title').waitFor();
    expect(await page.title()).toBe('Tabula API reference');
    await expect.poll(() => page.locator('.swagger-ui .info .title').innerText()).toContain('Tabula API');

    // Each resource group is a section headed by its tag (swagger-ui puts the name in data-tag).
    const tags = await page.locator('.opblock-tag-section h3.opblock-tag').evaluateAll((heads) => heads.map((h) => h.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(GROUPS));
    expect(await page.locator('h3.opblock-tag[data-tag="Contents"]').innerText()).toContain('Read keys see PUBLISHED rows only');
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${screenshot}-top.png`) });
    // Swagger UI's stylesheet applied: an operation's method badge is an 80 px block, not bare text.
    const badge = await page.locator('.opblock-get .opblock-summary-method').first().boundingBox();
    expect(badge?.width).toBeGreaterThanOrEqual(80);

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

    expect(problems).toEqual([]);
  } finally {
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${screenshot}.png`) });
    await page.close();
  }
}

describe('/docs', () => {
  it('renders the resource groups and the contents list operation on loopback, with no request leaving the origin', async () => {
    const origin = `http://127.0.0.1:${t.api.port}`;
    await expectReferenceRendered(browser, `${origin}/docs/`, origin, 'docs-loopback');
  }, BROWSER_TEST_MS);

  it('renders through a non-loopback address over plain http: nothing is upgraded to https', async (ctx) => {
    const other = remote;
    if ('unavailable' in other) {
      console.warn(`SKIPPED /docs through a non-loopback address: ${other.unavailable}`);
      return ctx.skip(`no second address for the browser: ${other.unavailable}`);
    }
    const origin = `http://${other.host.serverAddress}:${t.api.port}`;
    // What a person types: /docs without its slash, sent on to the reference.
    await expectReferenceRendered(other.browser, `${origin}/docs`, origin, 'docs-remote');
  }, BROWSER_TEST_MS);
});

describe('the docs page itself', () => {
  it('holds no stray "undefined" (e.g. in its <style>), also at /docs/index.html (not swagger-ui-dist\'s Petstore demo)', async () => {
    for (const at of ['/docs/', '/docs/index.html']) {
      const res = await fetch(`${t.url}${at}`);
      expect(res.status, at).toBe(200);
      const html = await res.text();
      expect(html, at).toContain('<title>Tabula API reference</title>');
      expect(html.match(/<style>([^<]*)<\/style>\s*<\/body>/)?.[1], at).not.toContain('undefined');
      expect(html, at).not.toContain('undefined');
    }
  });

  it('GET / redirects to the console, and /docs to /docs/ (the page loads its assets relative to it)', async () => {
    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/admin/');
    const docs = await fetch(`${t.url}/docs`, { redirect: 'manual' });
    expect(docs.status).toBe(301);
    expect(docs.headers.get('location')).toBe('/docs/');
    // Only GET (and HEAD) of the bare address: other methods are still 404.
    expect((await fetch(`${t.url}/`, { method: 'POST', redirect: 'manual' })).status).toBe(404);
  });
});
