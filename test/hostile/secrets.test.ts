import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { clientFor, type CallResult } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectError } from '../helpers/expect.js';
import { startReceiver, type Receiver } from '../webhooks/fixture.js';
import { until } from '../helpers/until.js';

/**
 * Secrets (account tokens, API keys, webhook secrets) are never logged and never returned after
 * the response that creates (or rotates) them. The API and the workers log at `trace` into
 * memory here, through the production logger and its redaction rules, while secrets are
 * created, rotated, used, refused, delivered with, and present during a server fault.
 */

let db: TestDatabase;
let api: RunningApi;
let workers: RunningWorkers;
let receiver: Receiver;
const lines: string[] = [];
const adminToken = generateSecret(ACCOUNT_TOKEN_PREFIX);
let call: ReturnType<typeof clientFor>;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver([500, 200]);
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', ADMIN_EMAIL: 'secrets@example.com', ADMIN_TOKEN: adminToken, LOG_LEVEL: 'trace',
    WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1',
  });
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger('trace', 'tabula', { format: 'json', destination });
  api = await startApi(config, db.url, logger);
  workers = await startWorkers(config, db.url, logger);
  call = clientFor(api.url, adminToken);
});
afterAll(async () => {
  await workers?.stop(1_000);
  await api?.close(1_000);
  await receiver?.close();
  await db?.drop();
});

const ok = (res: CallResult, status = 200) => {
  expect(res.status, res.text).toBe(status);
  return res.json;
};

/** The part of a secret no listing may show: everything after the 12-character display prefix. */
const hidden = (secret: string) => secret.slice(12);

describe('secrets', () => {
  it('are in no log line and in no response but the one that created or rotated them', async () => {
    const ws = ok(await call('POST', '/v1/workspaces', { body: { name: 'Secrets' } }), 201);
    const project = ok(await call('POST', `/v1/workspaces/${ws.id}/projects`, { body: { name: 'P' } }), 201);
    const p = `/v1/${project.id}`;
    const member = ok(await call('POST', `/v1/workspaces/${ws.id}/members`, { body: { email: 'invited@example.com', role: 'ADMIN' } }), 201);
    const key = ok(await call('POST', `${p}/api-keys`, { body: { name: 'k', permission: 'read_write' } }), 201);
    const rotatedKey = ok(await call('POST', `${p}/api-keys/${key.id}/rotate`, { body: { graceSeconds: 0 } }));
    const doomed = ok(await call('POST', `${p}/api-keys`, { body: { name: 'doomed', permission: 'read' } }), 201);
    const hook = ok(await call('POST', `${p}/webhooks`, { body: { url: receiver.url, events: ['*'] } }), 201);
    const rotatedHook = ok(await call('POST', `${p}/webhooks/${hook.id}/rotate-secret`));
    const secrets: Record<string, string> = {
      'admin token': adminToken,
      'invited account token': member.accessToken,
      'API key': key.key,
      'rotated API key': rotatedKey.key,
      'deleted API key': doomed.key,
      'webhook secret': hook.secret,
      'rotated webhook secret': rotatedHook.secret,
    };
    for (const [label, value] of Object.entries(secrets)) expect(value, label).toMatch(/^(tat_|tak_|whsec_)/);

    // Use them: accepted, refused, and used by the delivery worker (first attempt fails, then 200).
    ok(await call('POST', `${p}/tables`, { token: rotatedKey.key, body: { key: 'articles', name: 'A' } }), 201);
    expectError(await call('GET', `${p}/tables`, { token: key.key }), 401, 'UNAUTHORIZED');
    expectError(await call('GET', '/v1/workspaces', { token: rotatedKey.key }), 403, 'FORBIDDEN');
    ok(await call('GET', `${p}/tables`, { token: member.accessToken }));
    ok(await call('DELETE', `${p}/api-keys/${doomed.id}`), 204);
    const refused = await call('GET', `${p}/tables`, { token: doomed.key });
    expectError(refused, 401, 'UNAUTHORIZED');
    await until(() => receiver.requests.length >= 2, 15_000, 'a retried delivery');

    // A server fault while a key is presented: logged (with its request id), the key is not.
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let fault: CallResult;
    try {
      await admin.query('alter table variable rename to variable_gone');
      fault = await call('GET', `${p}/variables`, { token: rotatedKey.key, headers: { 'x-request-id': 'fault-under-key' } });
    } finally {
      await admin.query('alter table if exists variable_gone rename to variable');
      await admin.end();
    }
    expectError(fault, 500, 'INTERNAL_ERROR');

    // Listings and reads after creation.
    const reads = [
      await call('GET', `${p}/api-keys`),
      await call('PUT', `${p}/api-keys/${key.id}`, { body: { name: 'renamed' } }),
      await call('GET', `${p}/webhooks`),
      await call('GET', `${p}/webhooks/${hook.id}`),
      await call('PUT', `${p}/webhooks/${hook.id}`, { body: { name: 'renamed' } }),
      await call('GET', `${p}/webhooks/${hook.id}/deliveries`),
      await call('GET', `/v1/workspaces/${ws.id}/members`),
      await call('GET', '/v1/accounts/me', { token: member.accessToken }),
      refused,
    ];
    for (const res of reads) expect(res.status, res.text).toBeLessThan(500);

    const log = lines.join('');
    // The capture works, and a fault is logged with what identifies its request.
    expect(log).toContain('fault-under-key');
    for (const [label, value] of Object.entries(secrets)) {
      expect(log.includes(value) || log.includes(hidden(value)), `${label} in the logs`).toBe(false);
      for (const res of reads) expect(res.text.includes(hidden(value)), `${label} in ${res.text.slice(0, 120)}`).toBe(false);
    }
    // What the deliveries were signed with stays out of the receiver's view too, of course.
    for (const request of receiver.requests) expect(request.rawBody).not.toContain(hook.secret.slice(6));
  });
});
