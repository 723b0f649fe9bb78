import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startReceiver, type Receiver } from '../webhooks/fixture.js';
import { BROWSER_TEST_MS, expectAccessible, openConsole, screenshot, seedProject, signIn, type ConsoleRun } from './console.js';

/**
 * Receivers on 127.0.0.1 are allowed; the automatic retry waits an hour, so the only second
 * attempt a test sees is the one its Retry button asks for.
 */
const ENV = { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '3600' };

let run: ConsoleRun;
let workers: RunningWorkers;
let receiver: Receiver;
let seeded: Awaited<ReturnType<typeof seedProject>>;
beforeAll(async () => {
  run = await openConsole(ENV);
  // Every worker, as `npm run start:worker` runs them: the outbox relay and the deliveries among them.
  workers = await startWorkers(loadConfig({ ...ENV, LOG_LEVEL: 'silent' }), run.t.db.url, createLogger('silent'));
  receiver = await startReceiver([500, 200]);
  seeded = await seedProject(run.t);
  await run.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: run.t.url });
  await signIn(run);
}, BROWSER_TEST_MS);
afterAll(async () => {
  await receiver?.close();
  await workers?.stop(2_000);
  await run?.close();
});

describe('API keys page', () => {
  it(
    'creates a key whose value is shown once, copies it, rotates, edits and deletes',
    async () => {
      const { page, t } = run;
      await page.goto(`${seeded.base}/keys`);
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await page.getByText('No API key yet.').waitFor();

      await page.getByRole('button', { name: 'New API key' }).click();
      await page.getByLabel('Name').fill('website');
      await page.getByRole('button', { name: /Permission/ }).click();
      await page.getByRole('option', { name: 'Read and write' }).click();
      await page.getByLabel('Allowed hosts').fill('app.example.com\n*.example.org');
      await page.getByRole('button', { name: 'Create key' }).click();

      const dialog = page.getByRole('dialog', { name: 'API key “website” created' });
      await dialog.waitFor();
      const value = await dialog.getByLabel('API key').inputValue();
      expect(value).toMatch(/^tak_[A-Za-z0-9]{43}$/);
      await expectAccessible(page, 'api-keys: the value shown once');
      await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
      await dialog.getByText('Copied to the clipboard.').waitFor();
      // An expression, not a function: the root type-check has no DOM types.
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(value);
      await dialog.getByRole('button', { name: 'Done' }).click();
      await dialog.waitFor({ state: 'detached' });

      // The key works, from an allowed origin, as read_write.
      const write = await t.call('POST', `/v1/${seeded.projectId}/tables`, { token: value, headers: { origin: 'https://app.example.com' }, body: { key: 'posts', name: 'Posts' } });
      expect(write.status, write.text).toBe(201);

      // Listed by its prefix; the value is nowhere on the page, nor after a reload.
      const row = page.getByRole('row', { name: /website/ });
      await row.getByText(`${value.slice(0, 12)}…`).waitFor();
      await expect.poll(() => row.textContent()).toContain('Read and write');
      expect(await row.textContent()).toContain('*.example.org');
      expect(await page.content()).not.toContain(value);
      await page.reload();
      await row.getByText(`${value.slice(0, 12)}…`).waitFor();
      expect(await page.content()).not.toContain(value);
      // Used a moment ago: the listing says when.
      await expect.poll(() => row.textContent()).not.toContain('Never');

      // Rotate with no grace: a new value, shown once; the old one is refused at once.
      await page.getByRole('button', { name: 'Rotate website' }).click();
      await page.getByLabel('Old value keeps working for (seconds)').fill('0');
      await page.getByRole('button', { name: 'Rotate key' }).click();
      const rotated = page.getByRole('dialog', { name: 'New value of “website”' });
      const newValue = await rotated.getByLabel('API key').inputValue();
      expect(newValue).toMatch(/^tak_/);
      expect(newValue).not.toBe(value);
      await page.keyboard.press('Escape');
      await rotated.waitFor({ state: 'detached' });
      expect((await t.call('GET', `/v1/${seeded.projectId}/tables`, { token: value, headers: { origin: 'https://app.example.com' } })).status).toBe(401);
      expect((await t.call('GET', `/v1/${seeded.projectId}/tables`, { token: newValue, headers: { origin: 'https://app.example.com' } })).status).toBe(200);

      // Edit: a bad host is refused at its field, then a rename and deactivation are saved.
      await page.getByRole('button', { name: 'Edit website' }).click();
      await page.getByLabel('Allowed hosts').fill('not a host!');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByLabel('Allowed hosts').getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Allowed hosts').fill('app.example.com');
      await page.getByLabel('Name').fill('website-prod');
      await page.getByRole('dialog').getByRole('checkbox', { name: 'Active' }).focus();
      await page.keyboard.press('Space');
      await page.getByRole('button', { name: 'Save' }).click();
      const renamed = page.getByRole('row', { name: /website-prod/ });
      await expect.poll(() => renamed.textContent()).toContain('Inactive');
      expect((await t.call('GET', `/v1/${seeded.projectId}/tables`, { token: newValue, headers: { origin: 'https://app.example.com' } })).status).toBe(401);

      // Delete, after a confirmation.
      const old = await t.call('POST', `/v1/${seeded.projectId}/api-keys`, { body: { name: 'legacy', permission: 'read' } });
      expect(old.status).toBe(201);
      await page.reload();
      await page.getByRole('button', { name: 'Delete legacy' }).click();
      await page.getByRole('dialog', { name: 'Delete “legacy”?' }).getByRole('button', { name: 'Delete key' }).click();
      await page.getByRole('row', { name: /legacy/ }).waitFor({ state: 'detached' });
      expect((await t.call('GET', `/v1/${seeded.projectId}/tables`, { token: old.json.key })).status).toBe(401);

      await expectAccessible(page, 'api-keys');
      await screenshot(page, 'api-keys');
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('webhooks page', () => {
  it(
    'creates a webhook, shows its failed delivery, retries it into a delivered one, edits it, shows why it was disabled, deletes it',
    async () => {
      const { page, t } = run;
      await page.goto(`${seeded.base}/webhooks`);
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('Name').fill('search-indexer');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const dialog = page.getByRole('dialog', { name: 'Signing secret of “search-indexer”' });
      const secret = await dialog.getByLabel('Signing secret').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await dialog.getByRole('button', { name: 'Done' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await page.content()).not.toContain(secret);
      await page.getByRole('row', { name: /search-indexer/ }).getByText('All events').waitFor();

      // An event: the receiver answers 500 to its first attempt.
      const table = await t.call('POST', `/v1/${seeded.projectId}/tables`, { body: { key: 'authors', name: 'Authors' } });
      expect(table.status).toBe(201);
      const deliveries = page.getByRole('table', { name: 'Deliveries' });
      const failed = deliveries.getByRole('row').filter({ hasText: '500' });
      await failed.waitFor({ timeout: 30_000 });
      expect(await failed.textContent()).toContain('tables.created');
      await expectAccessible(page, 'webhooks with deliveries');

      await failed.getByRole('button', { name: /^Retry attempt 1 of tables.created/ }).click();
      await page.getByRole('status').filter({ hasText: 'Retried: attempt 2 answered 200.' }).waitFor();
      const delivered = deliveries.getByRole('row').filter({ hasText: '200' });
      await delivered.waitFor();
      // Newest first: the retried attempt above the failed one.
      expect(await deliveries.locator('tbody tr td:nth-child(4)').allTextContents()).toEqual(['200', '500']);
      expect(await deliveries.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['2', '1']);
      expect(receiver.requests.map((r) => r.json.type)).toEqual(['tables.created', 'tables.created']);
      expect(receiver.requests[0].headers['webhook-id']).toBe(receiver.requests[1].headers['webhook-id']);

      // Deactivate and activate again by the row's button.
      await page.getByRole('button', { name: 'Deactivate search-indexer' }).click();
      await page.getByRole('button', { name: 'Activate search-indexer' }).click();
      await page.getByRole('button', { name: 'Deactivate search-indexer' }).waitFor();

      // Edit: from every event to one type, narrowed to a table (shown by its name).
      await page.getByRole('button', { name: 'Edit search-indexer' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit “search-indexer”' });
      await edit.getByText('All events (*)').click();
      await edit.getByText('tables.created').click();
      await edit.getByText('Authors').click();
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.waitFor({ state: 'detached' });
      const edited = page.getByRole('row', { name: /search-indexer/ });
      await expect.poll(() => edited.textContent()).toContain('tables.created');
      expect(await edited.textContent()).toContain('Authors');

      // 410 Gone disables it: the list says so, with the reason.
      receiver.script = [410];
      expect((await t.call('POST', `/v1/${seeded.projectId}/tables`, { body: { key: 'tags', name: 'Tags' } })).status).toBe(201);
      await expect
        .poll(async () => {
          await page.reload();
          return page.getByRole('row', { name: /search-indexer/ }).textContent();
        }, { timeout: 30_000, interval: 1_000 })
        .toMatch(/Disabled: .+/);
      await page.getByRole('button', { name: 'Deliveries of search-indexer' }).click();
      await deliveries.getByRole('row').filter({ hasText: '410' }).waitFor();

      await expectAccessible(page, 'webhooks');
      await screenshot(page, 'webhooks');

      await page.getByRole('button', { name: 'Delete search-indexer' }).click();
      await page.getByRole('dialog', { name: 'Delete “search-indexer”?' }).getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText('No webhook yet.').waitFor();
      expect((await t.call('GET', `/v1/${seeded.projectId}/webhooks`)).json.list).toEqual([]);
      expect(run.problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
