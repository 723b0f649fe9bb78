import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_MS, expectAccessibleInBothThemes, openConsole, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * API keys holding a custom role, and the MCP configuration of a new key (docs/console.md#api-keys):
 * copied to the clipboard while the key's value is on screen, or shown to copy by hand.
 */

let run: ConsoleRun;
let seeded: Awaited<ReturnType<typeof seedProject>>;
let roleId: string;
beforeAll(async () => {
  run = await openConsole();
  seeded = await seedProject(run.t);
  const role = await run.t.call('POST', `/v1/${seeded.projectId}/roles`, { body: { name: 'Storefront', rules: [{ table: '*', actions: ['read'] }] } });
  expect(role.status, role.text).toBe(201);
  roleId = role.json.id;
  await run.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: run.t.url });
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await run?.close();
});

describe('API keys with a role', () => {
  it(
    'creates a key holding a role with the keyboard, copies its MCP configuration, and shows it by hand when the clipboard is refused',
    async () => {
      const { page, t } = run;
      await page.goto(`${seeded.base}/keys`);
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

      // The keyboard only: the dialog, the name, the permission select (a custom role), submit.
      await page.getByRole('button', { name: 'New API key' }).focus();
      await page.keyboard.press('Enter');
      const form = page.getByRole('dialog', { name: 'New API key' });
      await form.getByLabel('Name').waitFor();
      await page.keyboard.type('shop');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      const listbox = page.getByRole('listbox');
      await listbox.waitFor();
      for (let i = 0; i < 5 && (await listbox.locator('[data-focused]').textContent()) !== 'Role: Storefront'; i++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await listbox.waitFor({ state: 'detached' });
      await form.getByRole('button', { name: 'Create key' }).press('Enter');

      const dialog = page.getByRole('dialog', { name: 'API key “shop” created' });
      await dialog.waitFor();
      const value = await dialog.getByLabel('API key').inputValue();
      await dialog.getByRole('button', { name: 'Copy MCP configuration' }).click();
      await dialog.getByText('MCP configuration copied to the clipboard.').waitFor();
      const copied = JSON.parse(String(await page.evaluate('navigator.clipboard.readText()')));
      expect(copied).toEqual({ mcpServers: { tabula: { type: 'http', url: `${t.url}/mcp`, headers: { Authorization: `Bearer ${value}` } } } });
      await expectAccessibleInBothThemes(page, 'api keys: the MCP configuration', 'api-key-mcp');

      // The browser refuses the clipboard: the configuration is shown, to copy by hand.
      await page.evaluate('navigator.clipboard.writeText = () => Promise.reject(new Error("denied"))');
      await dialog.getByRole('button', { name: 'Copy MCP configuration' }).click();
      const fallback = dialog.getByLabel('MCP configuration');
      await fallback.waitFor();
      expect(JSON.parse(await fallback.inputValue()).mcpServers.tabula.headers.Authorization).toBe(`Bearer ${value}`);
      await dialog.getByRole('button', { name: 'Done' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Listed with its role; the API holds the role, not a permission.
      const row = page.getByRole('row', { name: /shop/ });
      await expect.poll(() => row.textContent()).toContain('Role: Storefront');
      const keys = (await t.call('GET', `/v1/${seeded.projectId}/api-keys`)).json.list;
      expect(keys.find((k: { name: string }) => k.name === 'shop')).toMatchObject({ roleId, permission: null });
      expect(await page.content()).not.toContain(value);

      // Editing it back to a permission.
      await page.getByRole('button', { name: 'Edit shop' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit “shop”' });
      await edit.locator('.field', { has: page.getByText('Permission', { exact: true }) }).getByRole('button').click();
      await page.getByRole('option', { name: 'Read (GET only)' }).click();
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.waitFor({ state: 'detached' });
      await expect.poll(() => row.textContent()).toContain('Read (GET only)');
      await expectAccessibleInBothThemes(page, 'api keys', 'api-keys-roles');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
