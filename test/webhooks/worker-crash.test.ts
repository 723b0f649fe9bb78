import { spawn, type ChildProcess } from 'node:child_process';
import { builtArgs, root } from '../helpers/child.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, createRow, type World } from '../contents/fixture.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { buildWorld } from '../contents/fixture.js';
import { createWebhook, startReceiver, WEBHOOK_ENV, type Receiver } from './fixture.js';
import { until } from '../helpers/until.js';

/**
 * docs/webhooks.md#how-it-runs: a worker killed with SIGKILL in the middle of a delivery loses nothing:
 * its attempt stops heartbeating, pg-boss fails it, and another worker delivers the event with
 * the same webhook-id.
 */
let t: TestApi;
let w: World;
let receiver: Receiver;
let doomed: ChildProcess | undefined;
let survivor: RunningWorkers | undefined;
beforeAll(async () => {
  t = await startTestApi(WEBHOOK_ENV);
  w = await buildWorld(t);
  // The first request hangs (the worker is killed meanwhile); later ones succeed.
  receiver = await startReceiver(['hang', 200]);
});
afterAll(async () => {
  doomed?.kill('SIGKILL');
  await survivor?.stop(2000);
  await receiver?.close();
  await t?.close();
});

describe('a worker killed mid-delivery', () => {
  it('SIGKILL during an attempt: another worker delivers the same event', { timeout: 90_000 }, async () => {
    await createWebhook(w, { name: 'r', url: receiver.url, events: ['contents.created'] });
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    const row = await createRow(w, table.id, { title: 'in flight' });
    // Node itself on the compiled entry (dist/, built by pretest; no wrapper process): SIGKILL must reach the worker process.
    doomed = spawn(process.execPath, builtArgs('workers/main.ts'), {
      cwd: root,
      env: { ...process.env, ...WEBHOOK_ENV, DATABASE_URL: t.db.url, LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
    const first = await until(() => receiver.requests.find((r) => r.json?.data?.id === row.id), 30_000, 'first attempt');
    doomed.kill('SIGKILL');
    await new Promise((resolve) => doomed!.once('exit', resolve));

    survivor = await startWorkers(loadConfig({ ...WEBHOOK_ENV, LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'));
    const attempts = await until(() => {
      const all = receiver.requests.filter((r) => r.json?.data?.id === row.id);
      return all.length >= 2 ? all : null;
    }, 60_000, 'redelivery');
    expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([first.headers['webhook-id']]));
  });
});
