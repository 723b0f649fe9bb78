import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createTable } from '../contents/fixture.js';
import { freePort, runScript, startScript, type Running } from '../helpers/child.js';
import { createWebhook, deliveries, startWebhookEnv, type WebhookEnv } from '../webhooks/fixture.js';
import { until } from '../helpers/until.js';

/** The examples in examples/ run as a user runs them (tsx child processes) against a real API and workers. */

let env: WebhookEnv;
let receiver: Running | undefined;

beforeAll(async () => {
  env = await startWebhookEnv();
});
afterAll(async () => {
  await receiver?.stop();
  await env?.close();
});

describe('examples/typed-client.ts', () => {
  it('builds a catalogue through the typed client and prints the filtered, sorted list', { timeout: 60_000 }, async () => {
    const run = await runScript('examples/typed-client.ts', [], { TABULA_URL: env.t.url, TABULA_TOKEN: env.t.adminToken });
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain('created 4 products');
    const listed = lines.indexOf('kitchen products under 100, most expensive first (de): 2 found');
    expect(listed, run.stdout).toBeGreaterThan(0);
    expect(lines.slice(listed + 1, listed + 3)).toEqual(['  Teekanne  35', '  Becher  9']);
    const refused = lines.find((line) => line.startsWith('refused (422 VALIDATION_ERROR): '));
    expect(refused, run.stdout).toContain('data.name is required');
    expect(refused).toContain('data.price must be at least 0');

    // What it printed is what the API holds.
    const projectId = run.stdout.match(/^project (\S+)/m)![1];
    const rows = await env.t.call('GET', `/v1/${projectId}/tables/products/contents?withCount=true`);
    expect(rows.json.pagination.total).toBe(4);
  });

  it('exits 2 with a hint when TABULA_TOKEN is missing', async () => {
    const run = await runScript('examples/typed-client.ts', [], { TABULA_URL: env.t.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('TABULA_TOKEN');
  });
});

describe('examples/webhook-receiver.ts', () => {
  it('verifies real deliveries and refuses a forged one', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/tabula`;
    const hook = await createWebhook(env.w, { url, events: ['contents.created'] });
    receiver = startScript('examples/webhook-receiver.ts', { TABULA_WEBHOOK_SECRET: hook.secret, PORT: String(port) });
    await receiver.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+\/hooks\/tabula/);

    const table = await createTable(env.w, [{ name: 'title', type: 'text' }]);
    const created = await env.t.call('POST', `/v1/${env.w.projectId}/tables/${table.key}/contents`, { body: { data: { title: 'Hello' } } });
    expect(created.status, created.text).toBe(201);
    const [, eventId] = await receiver.waitFor(new RegExp(`verified contents\\.created (\\S+) project=${env.w.projectId} data\\.id=${created.json.id}`));
    // Tabula recorded the receiver's 204 as the delivery.
    const recorded = await until(async () => (await deliveries(env.w, hook.id)).find((d) => d.eventId === eventId));
    expect(recorded.statusCode).toBe(204);

    // A body signed with another secret is refused with 400 and logged as rejected.
    const forged = JSON.stringify({ id: 'evt', type: 'contents.deleted', projectId: env.w.projectId, createdAt: new Date().toISOString(), data: {} });
    const signature = new Webhook(`whsec_${Buffer.from('not the secret at all!').toString('base64')}`).sign('evt', new Date(), forged);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': 'evt', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': signature }, body: forged });
    expect(res.status).toBe(400);
    await receiver.waitFor(/rejected: /);
    expect(receiver.output()).not.toContain('contents.deleted');

    expect(await receiver.stop()).toBe(0);
  });
});
