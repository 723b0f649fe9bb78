import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/**
 * The console in a real headless Chromium (Debian's, installed by .ci/run) against a real API:
 * each test file opens one API with its own database and one browser, signs in with the API's
 * admin token, and drives the pages as a person would (roles and labels, the keyboard).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Screenshots of the main pages, kept as CI artifacts (and the README's pictures). */
export const SCREENSHOTS = 'test-output/admin';
/** Ceiling for one browser test (a loaded 2-core machine), not an expectation. */
export const BROWSER_TEST_MS = 120_000;

interface AxePage {
  document: unknown;
  axe: { run(context: unknown, options: object): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> };
}

const axeSource: string = createRequire(import.meta.url)('axe-core').source;

export interface ConsoleRun {
  t: TestApi;
  browser: Browser;
  page: Page;
  /** Content-Security-Policy violations and uncaught page errors seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export async function openConsole(env: Record<string, string> = {}): Promise<ConsoleRun> {
  // CI installs Chromium; a missing browser is a broken setup, not a reason to skip.
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`).toBe(true);
  const t = await startTestApi(env);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    t,
    browser,
    page,
    problems,
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}

/** Signs in through the sign-in form, with the keyboard only, and waits for the workspaces page. */
export async function signIn(run: ConsoleRun, token = run.t.adminToken): Promise<void> {
  const { page } = run;
  await page.goto(`${run.t.url}/admin/`);
  await page.getByLabel('Account token').fill(token);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
}

/**
 * axe-core on the page as it is: no serious or critical violation. It runs through the DevTools
 * protocol (page.evaluate), which the page's CSP does not govern, so the policy stays as served.
 */
async function axeClean(page: Page, label: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // In the page: axe-core's global, and the page's document (the test's tsconfig has no DOM types).
    const { axe, document } = globalThis as unknown as AxePage;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `accessibility of ${label}`).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

/** A workspace and a project (locales en and de) made through the API, for pages that need them. */
export async function seedProject(t: TestApi, locales = ['en', 'de']): Promise<{ workspaceId: string; projectId: string; base: string }> {
  const workspace = await t.call('POST', '/v1/workspaces', { body: { name: 'Editorial' } });
  expect(workspace.status).toBe(201);
  const project = await t.call('POST', `/v1/workspaces/${workspace.json.id}/projects`, { body: { name: 'Magazine', locales } });
  expect(project.status).toBe(201);
  return { workspaceId: workspace.json.id, projectId: project.json.id, base: `${t.url}/admin/w/${workspace.json.id}/p/${project.json.id}` };
}

/**
 * axe-core (above) in the dark and the light theme: the console follows the system's setting
 * (prefers-color-scheme), and every check covers both. Ends in the light theme. With `name`, a
 * screenshot of each theme too (`name-dark.png`, `name.png`).
 */
export async function expectAccessible(page: Page, label: string, name?: string): Promise<void> {
  for (const theme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await axeClean(page, `${label} (${theme} theme)`);
    if (name) await screenshot(page, theme === 'dark' ? `${name}-dark` : name);
  }
}

/** The same check, by the name the pages checked in both themes from the start use. */
export const expectAccessibleInBothThemes = expectAccessible;
