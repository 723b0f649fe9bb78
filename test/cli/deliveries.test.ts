import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable } from '../contents/fixture.js';
import { runBuilt } from '../helpers/child.js';
import { UUID_SHAPE } from '../helpers/expect.js';
import { createWebhook, deliveries, startReceiver, startWebhookEnv, type Receiver, type WebhookEnv } from '../webhooks/fixture.js';
import { until } from '../helpers/until.js';

/** `npm run cli -- deliveries replay --id D` against a real API, workers and receiver (its compiled entry point: see test/cli/cli.test.ts). */

let env: WebhookEnv;
let receiver: Receiver;

beforeAll(async () => {
  // One attempt per event, then a retry an hour later: nothing but the CLI delivers again here.
  env = await startWebhookEnv({ WEBHOOK_RETRY_DELAYS: '3600' });
  receiver = await startReceiver([500]);
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

const replay = (...args: string[]) =>
  runBuilt('src/cli/main.ts', ['deliveries', 'replay', ...args], { DATABASE_URL: env.t.db.url, WEBHOOKS_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' });

describe('deliveries replay', () => {
  it('delivers a failed event again and prints the new attempt; exit 1 while the endpoint still fails', { timeout: 60_000 }, async () => {
    const hook = await createWebhook(env.w, { url: receiver.url, events: ['contents.created'] });
    const table = await createTable(env.w, [{ name: 'title', type: 'text' }]);
    const row = await env.t.call('POST', `/v1/${env.w.projectId}/tables/${table.key}/contents`, { body: { data: { title: 'Hi' } } });
    expect(row.status, row.text).toBe(201);
    const failed = await until(async () => (await deliveries(env.w, hook.id)).find((d) => d.statusCode === 500), 15_000, 'a failed delivery');
    expect(failed.attempt).toBe(1);

    // Still failing: the attempt is recorded, the exit code says it did not go through.
    const again = await replay('--id', failed.id);
    expect(again.code, again.stderr).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ eventId: failed.eventId, type: 'contents.created', attempt: 2, statusCode: 500 });
    expect(again.stderr).toBe('not delivered: Endpoint answered 500\n');

    receiver.script = [200];
    const fixed = await replay('--id', failed.id);
    expect(fixed.code, fixed.stderr).toBe(0);
    const attempt = JSON.parse(fixed.stdout);
    expect(attempt).toMatchObject({ eventId: failed.eventId, type: 'contents.created', attempt: 3, statusCode: 200, error: null });
    expect(attempt.id).toMatch(UUID_SHAPE);
    // The receiver got the same event (same webhook-id), and the API lists the new attempt.
    const last = receiver.requests.at(-1)!;
    expect(last.headers['webhook-id']).toBe(failed.eventId);
    expect(last.json).toMatchObject({ type: 'contents.created', data: { id: row.json.id } });
    expect((await deliveries(env.w, hook.id)).map((d) => [d.id, d.statusCode])).toContainEqual([attempt.id, 200]);
  });

  it('an unknown or malformed id is NOT_FOUND (exit 1); a missing --id is a usage error (exit 2)', async () => {
    const [unknown, malformed, missing] = await Promise.all([replay('--id', '0190b0a0-0000-7000-8000-00000000c0de'), replay('--id', 'abc'), replay()]);
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'error: NOT_FOUND: Delivery not found\n' });
    expect(malformed).toMatchObject({ code: 1, stdout: '', stderr: 'error: NOT_FOUND: Delivery not found\n' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: --id is required\n\nUsage: npm run cli -- deliveries replay --id <deliveryId>/);
  });
});
