import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { builtArgs, freePort, root } from '../helpers/child.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startReceiver, WEBHOOK_ENV, type Receiver } from './fixture.js';
import { until } from '../helpers/until.js';

/**
 * docs/webhooks.md#how-it-runs: a committed change is never lost, even if the process is killed right after the commit.
 * The API runs as a real child process and is killed with SIGKILL right after a 201; the event,
 * committed with the row, is still delivered by the workers.
 */
let db: TestDatabase;
let api: ChildProcess | undefined;
let workers: RunningWorkers | undefined;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver([200]);
});
afterAll(async () => {
  api?.kill('SIGKILL');
  await workers?.stop(2000);
  await receiver?.close();
  await db?.drop();
});

describe('a committed event survives the API being killed', () => {
  it('SIGKILL right after a 201: the contents.created event is still delivered', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const token = generateSecret(ACCOUNT_TOKEN_PREFIX);
    const env = { ...process.env, ...WEBHOOK_ENV, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_EMAIL: 'crash@example.com', ADMIN_TOKEN: token };
    // Node itself on the compiled entry (dist/, built by pretest; no wrapper process): SIGKILL must reach the API process.
    api = spawn(process.execPath, builtArgs('src/api.ts'), { cwd: root, env, stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}/v1`;
    await until(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false), 30_000, 'API ready');
    const call = async (method: string, url: string, body: unknown) => {
      const res = await fetch(base + url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as { id: string } };
    };
    const ws = await call('POST', '/workspaces', { name: 'Crash' });
    const project = await call('POST', `/workspaces/${ws.json.id}/projects`, { name: 'P' });
    const table = await call('POST', `/${project.json.id}/tables`, { key: 'items', name: 'Items' });
    await call('POST', `/${project.json.id}/tables/items/columns`, { name: 'title', type: 'text' });
    expect((await call('POST', `/${project.json.id}/webhooks`, { name: 'r', url: receiver.url, events: ['contents.created'] })).status).toBe(201);

    const created = await call('POST', `/${project.json.id}/tables/items/contents`, { data: { title: 'survives' } });
    expect(created.status).toBe(201);
    api.kill('SIGKILL');
    await new Promise((resolve) => api!.once('exit', resolve));

    // No worker ran while the API lived: the event waits in the database until one starts.
    workers = await startWorkers(loadConfig({ ...WEBHOOK_ENV, LOG_LEVEL: 'silent' }), db.url, createLogger('silent'));
    const delivered = await until(() => receiver.requests.find((r) => r.json?.data?.id === created.json.id), 15_000, 'delivery');
    expect(delivered.json).toMatchObject({ type: 'contents.created', projectId: project.json.id, data: { data: { title: 'survives' } } });
    expect(table.status).toBe(201);
  });
});
