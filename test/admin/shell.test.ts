import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/http/admin-console.js';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

let run: ConsoleRun;
beforeAll(async () => {
  run = await openConsole();
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('/admin as served', () => {
  it('answers index.html for every page address, revalidated, under the strict policy', async () => {
    for (const path of ['/admin/', '/admin/w/0190a3f5-0000-7000-8000-000000000000/p/x/tables']) {
      const res = await fetch(`${run.t.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      const html = await res.text();
      // No inline script: one module script from this origin's hashed assets.
      expect(html).toMatch(/<script type="module" crossorigin src="\/admin\/assets\/index-[\w-]+\.js"><\/script>/);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('serves hashed assets for a year, immutable, and 404s a missing one', async () => {
    const html = await (await fetch(`${run.t.url}/admin/`)).text();
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${run.t.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${run.t.url}/admin/assets/nothing-here.js`)).status).toBe(404);
  });

  it('is where the bare address sends a person', async () => {
    const root = await fetch(`${run.t.url}/`, { redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/admin/');
  });
});

describe('signing in and the workspace and project pages', () => {
  it(
    'refuses a wrong token at its field, then signs in, creates a workspace and a project, by keyboard',
    async () => {
      const { page } = run;
      await page.goto(`${run.t.url}/admin/`);
      await page.getByRole('heading', { name: 'Sign in to Tabula' }).waitFor();
      await expectAccessible(page, 'sign-in');
      await screenshot(page, 'sign-in');
      await page.getByLabel('Account token').fill('tat_wrong');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByLabel('Account token').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('.field-error').textContent()).toMatch(/token/i);

      await signIn(run);
      await expectAccessible(page, 'workspaces');
      await page.getByLabel('New workspace').fill('Newsroom');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Newsroom', level: 1 }).waitFor();
      await page.getByLabel('New project').fill('Daily');
      await page.getByLabel('Locales').fill('en, fr');
      await page.getByLabel('Locales').press('Enter');
      await page.waitForURL(/\/admin\/w\/[\w-]+\/p\/[\w-]+\/tables$/);
      await page.getByRole('navigation', { name: 'Project' }).waitFor();
      // The switchers name where the person is.
      await expect.poll(() => page.getByRole('button', { name: /Workspace/ }).textContent()).toContain('Newsroom');
      await expect.poll(() => page.getByRole('button', { name: /Project/ }).textContent()).toContain('Daily');

      await page.goto(`${run.t.url}/admin/`);
      await page.getByRole('link', { name: 'Newsroom' }).click();
      await page.getByRole('link', { name: 'Daily' }).waitFor();
      await expectAccessible(page, 'projects');
      await screenshot(page, 'projects');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it('keeps the session across a reload, and signs out', async () => {
    const { page } = run;
    await page.reload();
    await page.getByRole('link', { name: 'Daily' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Tabula' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Tabula' }).waitFor();
  });
});

describe('a page that cannot be drawn', () => {
  it(
    'says so in its place, keeps the navigation, and the next page draws again',
    async () => {
      const { page } = run;
      const { base } = await seedProject(run.t);
      await signIn(run);
      // An answer of a shape the page does not expect (variables without their list): its render
      // fails. The console batches its calls: only that call's answer in the batch is changed.
      const broken = '**/trpc/**';
      await page.route(broken, async (route) => {
        const procedures = new URL(route.request().url()).pathname.split('/trpc/')[1].split(',');
        const at = procedures.indexOf('variables.list');
        if (at < 0) return route.continue();
        const response = await route.fetch();
        const answers = (await response.json()) as unknown[];
        answers[at] = { result: { data: { list: null } } };
        await route.fulfill({ response, body: JSON.stringify(answers) });
      });
      await page.goto(`${base}/variables`);
      const alert = page.getByRole('alert').filter({ hasText: 'This page could not be shown' });
      await alert.waitFor();
      await page.getByRole('navigation', { name: 'Project' }).waitFor();
      await expectAccessible(page, 'page-error');
      await screenshot(page, 'page-error');

      // Another page draws; the same page draws again, reloaded, once its answers are whole.
      await page.getByRole('link', { name: 'File library' }).click();
      await page.getByRole('heading', { name: 'File library', level: 1 }).waitFor();
      expect(await alert.count()).toBe(0);
      await page.getByRole('link', { name: 'Variables' }).click();
      await alert.waitFor();
      await page.unroute(broken);
      await page.getByRole('button', { name: 'Reload the page' }).click();
      await page.getByRole('heading', { name: 'Variables', level: 1 }).waitFor();
      expect(await alert.count()).toBe(0);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
