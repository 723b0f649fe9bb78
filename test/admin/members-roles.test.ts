import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Members and roles (docs/console.md#members-and-roles): invite, change a role, remove; a role's
 * rules built as a form (the where with the contents list's filter builder), the explain view;
 * and a member holding a custom role sees only what the role allows.
 */

let run: ConsoleRun;
let seeded: Awaited<ReturnType<typeof seedProject>>;
beforeAll(async () => {
  run = await openConsole();
  seeded = await seedProject(run.t);
  const table = await run.t.call('POST', `/v1/${seeded.projectId}/tables`, { body: { key: 'articles', name: 'Articles' } });
  expect(table.status, table.text).toBe(201);
  for (const column of [{ name: 'title', type: 'text', settings: { localized: true } }, { name: 'owner', type: 'text' }, { name: 'notes', type: 'text' }]) {
    const res = await run.t.call('POST', `/v1/${seeded.projectId}/tables/articles/columns`, { body: column });
    expect(res.status, res.text).toBe(201);
  }
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

/** The button of the react-aria select labelled `label` (its name is its value and its label). */
const selectButton = (page: Page, scope: Locator, label: string) => scope.locator('.field', { has: page.getByText(label, { exact: true }) }).getByRole('button');

/** Picks `option` in the react-aria select labelled `label`. */
async function choose(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await selectButton(page, scope, label).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** The same with the keyboard: focus, Enter opens, the arrows and typing move, Enter picks. */
async function chooseByKeyboard(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await selectButton(page, scope, label).focus();
  await page.keyboard.press('Enter');
  const listbox = page.getByRole('listbox');
  await listbox.waitFor();
  for (let i = 0; i < 20; i++) {
    const focused = await listbox.locator('[data-focused]').textContent().catch(() => null);
    if (focused === option) break;
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await listbox.waitFor({ state: 'detached' });
}

describe('members and roles', () => {
  it(
    'invites by e-mail, changes a role with the keyboard, removes a member',
    async () => {
      const { page, t } = run;
      await page.goto(`${seeded.base}/members`);
      await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      // The project's navigation offers the admin pages to an admin.
      const nav = page.getByRole('navigation', { name: 'Project' });
      for (const link of ['Members', 'Roles', 'API keys', 'File library', 'Categories', 'Variables', 'Translations']) await nav.getByRole('link', { name: link, exact: true }).waitFor();

      // Invite an unknown address as an Editor: the account is made, its token shown once.
      const form = page.getByRole('form', { name: 'Invite to the project' });
      await form.getByLabel('E-mail').fill('ada@example.com');
      await choose(page, form, 'Role', 'EDITOR');
      await form.getByRole('button', { name: 'Invite' }).click();
      const dialog = page.getByRole('dialog', { name: 'Account created for ada@example.com' });
      await dialog.waitFor();
      expect(await dialog.getByLabel('Account token').inputValue()).toMatch(/^tat_/);
      await dialog.getByRole('button', { name: 'Done' }).click();
      const members = page.getByRole('table', { name: 'Project members' });
      const row = members.getByRole('row', { name: /ada@example\.com/ });
      await row.waitFor();

      // Change the role with the keyboard only.
      await chooseByKeyboard(page, row, 'Role of ada@example.com', 'VIEWER');
      await expect.poll(async () => (await t.call('GET', `/v1/workspaces/${seeded.workspaceId}/projects/${seeded.projectId}/members`)).json.list[0]?.role).toBe('VIEWER');
      await page.getByRole('table', { name: 'Workspace members' }).getByRole('row', { name: /ada@example\.com/ }).waitFor();
      await expectAccessibleInBothThemes(page, 'members', 'members');

      // Remove from the project, after a confirmation.
      await row.getByRole('button', { name: 'Remove ada@example.com from the project' }).click();
      const confirm = page.getByRole('dialog', { name: 'Remove ada@example.com?' });
      await confirm.getByRole('button', { name: 'Remove' }).click();
      await confirm.waitFor({ state: 'detached' });
      await row.waitFor({ state: 'detached' });
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'creates a role whose rules are a form, shows a refusal at its rule, explains it, edits and deletes it',
    async () => {
      const { page, t } = run;
      await page.goto(`${seeded.base}/roles`);
      await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
      const roles = page.getByRole('table', { name: 'Roles' });
      for (const name of ['ADMIN', 'EDITOR', 'VIEWER']) await roles.getByRole('row', { name: new RegExp(`^${name}`) }).waitFor();

      await page.getByRole('button', { name: 'New role' }).click();
      await page.getByRole('heading', { name: 'New role', level: 1 }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('German translator');
      await page.getByLabel('Description').fill('German titles of its own articles');
      const rule = page.getByRole('group', { name: 'Rule 1' });
      await choose(page, rule, 'Table', 'Articles (articles)');
      const actions = rule.getByRole('group', { name: 'Actions' });
      await actions.getByRole('checkbox', { name: 'update' }).press('Space');
      // The where: the contents list's filter builder, on the table's columns.
      const where = rule.getByRole('region', { name: 'Rule 1 rows' });
      await choose(page, where, 'Filter by', 'owner');
      await choose(page, where, 'Condition', 'is');
      await where.getByRole('textbox', { name: 'Value' }).fill('$me');
      await where.getByRole('button', { name: 'Add filter' }).click();
      await where.getByText('owner is $me').waitFor();
      // Columns written: only the French title (one locale of a localized column).
      const written = rule.getByRole('group', { name: 'Columns written' });
      await written.getByRole('checkbox', { name: 'All columns' }).press('Space');
      await written.getByRole('checkbox', { name: 'title.de' }).press('Space');
      await rule.getByRole('checkbox', { name: 'Updates of published rows become drafts' }).press('Space');

      // A second rule the API refuses: statuses chosen, none ticked (422 at rules.1.statuses).
      await page.getByRole('button', { name: 'Add rule' }).click();
      const second = page.getByRole('group', { name: 'Rule 2' });
      await second.getByRole('group', { name: 'Statuses read' }).getByRole('checkbox', { name: 'Every status' }).press('Space');
      await page.getByRole('button', { name: 'Create role' }).click();
      await second.locator('.rule-errors').getByText(/statuses/).waitFor();
      await page.getByRole('alert').getByText('The role was not saved').waitFor();
      await expectAccessibleInBothThemes(page, 'roles: the rule form', 'roles-form');
      await second.getByRole('button', { name: 'Remove rule 2' }).click();
      await page.getByRole('button', { name: 'Create role' }).click();
      await roles.getByRole('row', { name: /German translator/ }).waitFor();

      const stored = (await t.call('GET', `/v1/${seeded.projectId}/roles`)).json.list.find((r: { name: string }) => r.name === 'German translator');
      expect(stored.rules).toEqual([
        { table: 'articles', actions: ['read', 'update'], where: [{ i: 'owner', w: 'eq', v: '$me' }], fields: { write: ['title.de'] }, writeAsDraft: true },
      ]);

      // Explain: what the role may do on the articles.
      const explain = page.getByRole('region', { name: 'What may they do?' });
      await choose(page, explain, 'Who', 'Role: German translator');
      const verdicts = explain.getByRole('table', { name: 'Allowed actions' });
      await verdicts.getByRole('row', { name: /^update Allowed by rule 1/ }).waitFor();
      await verdicts.getByRole('row', { name: /^delete Not allowed/ }).waitFor();
      await explain.getByText('Columns written: title.de').waitFor();
      await expectAccessibleInBothThemes(page, 'roles', 'roles');

      // Edit: another description; then delete.
      await page.getByRole('button', { name: 'Edit German translator' }).click();
      await page.getByLabel('Description').fill('Translates');
      await page.getByRole('button', { name: 'Save role' }).click();
      await roles.getByRole('row', { name: /Translates/ }).waitFor();
      await page.getByRole('button', { name: 'Delete German translator' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete the role “German translator”?' });
      await confirm.getByRole('button', { name: 'Delete role' }).click();
      await roles.getByRole('row', { name: /German translator/ }).waitFor({ state: 'detached' });
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'a member holding a custom role sees only what the role allows',
    async () => {
      const { t, browser } = run;
      const role = await t.call('POST', `/v1/${seeded.projectId}/roles`, { body: { name: 'Article reader', rules: [{ table: 'articles', actions: ['read'] }] } });
      expect(role.status, role.text).toBe(201);
      const invited = await t.call('POST', `/v1/workspaces/${seeded.workspaceId}/members`, { body: { email: 'reader@example.com', role: 'MEMBER' } });
      expect(invited.status, invited.text).toBe(201);
      const added = await t.call('POST', `/v1/workspaces/${seeded.workspaceId}/projects/${seeded.projectId}/members`, { body: { email: 'reader@example.com', role: role.json.id } });
      expect(added.status, added.text).toBe(201);

      const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      try {
        await page.goto(`${t.url}/admin/`);
        await page.getByLabel('Account token').fill(invited.json.accessToken);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor();
        const probe = page.waitForResponse((response) => response.url().includes('files.list'));
        await page.goto(`${seeded.base}/categories`);
        await page.getByRole('heading', { name: 'Categories', level: 1 }).waitFor();
        const nav = page.getByRole('navigation', { name: 'Project' });
        await nav.getByRole('link', { name: 'Articles' }).waitFor();
        await nav.getByRole('link', { name: 'Translations' }).waitFor();
        // The files probe has answered (403: no "$files" rule) before the links are counted.
        await probe;
        await page.getByRole('link', { name: 'Translations' }).waitFor();
        const links = await nav.getByRole('link').allTextContents();
        for (const hidden of ['Members', 'Roles', 'Schema', 'API keys', 'Webhooks', 'Request logs', 'Usage', 'File library']) expect(links, hidden).not.toContain(hidden);
        // Categories are read, not written, by a custom role.
        expect(await page.getByRole('button', { name: 'New category' }).count()).toBe(0);
        await page.screenshot({ path: 'test-output/admin/custom-role-member.png' });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
    BROWSER_TEST_MS,
  );
});
