import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { loadConfig } from '../../src/config/config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { MAX_LINE_BYTES } from '../../src/shared/log-safety.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { clientFor } from '../helpers/api.js';
import { logCapture } from '../helpers/log-capture.js';
import { until } from '../helpers/until.js';

/**
 * docs/reliability.md#reliability: PostgreSQL restarts while the API serves load. Requests in
 * flight fail with a 503 or 500 error body (never a hang, never a torn response), and the API
 * recovers by itself within 10 s of the database coming back, without a restart. What it logs
 * meanwhile stays small: no line over 2 KB, no driver client, no password.
 */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

interface Outcome {
  at: number;
  status: number;
  body: string;
}

describe('PostgreSQL restart under load', () => {
  it('in-flight requests fail with error bodies, and the API recovers on its own', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-fault-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    let pg: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg') });
    cleanup.push(() => pg.stop());
    const port = Number(new URL(pg.url).port);
    const token = generateSecret(ACCOUNT_TOKEN_PREFIX);
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_EMAIL: 'fault@example.com', ADMIN_TOKEN: token, RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000', STORAGE_DIR: path.join(dir, 'files') });
    const { lines: logLines, stream: logs } = logCapture();
    const api: RunningApi = await startApi(config, pg.url, createLogger('debug', 'tabula', { destination: logs }));
    cleanup.push(() => api.close(1000));
    const call = clientFor(api.url, token);

    const ws = await call('POST', '/v1/workspaces', { body: { name: 'Fault' } });
    const project = await call('POST', `/v1/workspaces/${ws.json.id}/projects`, { body: { name: 'P' } });
    const base = `/v1/${project.json.id}/tables/items`;
    expect((await call('POST', `/v1/${project.json.id}/tables`, { body: { key: 'items', name: 'Items' } })).status).toBe(201);
    expect((await call('POST', `${base}/columns`, { body: { name: 'title', type: 'text' } })).status).toBe(201);
    const first = await call('POST', `${base}/contents`, { body: { data: { title: 'first' } } });
    expect(first.status).toBe(201);

    // Four clients: reads by id, lists and creates, each request with a deadline (a hang fails it).
    const outcomes: Outcome[] = [];
    let running = true;
    const requests = [
      () => fetch(`${api.url}${base}/contents/${first.json.id}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(20_000) }),
      () => fetch(`${api.url}${base}/contents?size=5`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(20_000) }),
      () =>
        fetch(`${api.url}${base}/contents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ data: { title: 'load' } }),
          signal: AbortSignal.timeout(20_000),
        }),
    ];
    const client = async (i: number) => {
      while (running) {
        const res = await requests[i % requests.length]();
        outcomes.push({ at: Date.now(), status: res.status, body: await res.text() });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const clients = Promise.all([0, 1, 2, 3].map(client));

    await until(() => outcomes.length >= 20, 30_000, 'the load to be under way');
    await pg.stop();
    const downAt = Date.now();
    // Down until the clients have felt it: a request answered after the stop failed.
    await until(() => outcomes.some((o) => o.at > downAt && o.status >= 300), 30_000, 'a failed request while the database is down', 50);
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port });
    const upAt = Date.now();
    // Run until every client has succeeded again (or 12 s have passed), then a little longer.
    await until(() => outcomes.filter((o) => o.at > upAt && o.status < 300).length >= 20, upAt + 12_000 - Date.now(), '20 successes after the restart', 100)
      .catch(() => undefined); // the assertions below say what went wrong
    running = false;
    await clients;

    const failures = outcomes.filter((o) => o.status >= 300);
    expect(failures.length, 'the outage was noticed').toBeGreaterThan(0);
    for (const failure of failures) {
      expect([500, 503], failure.body).toContain(failure.status);
      const body = JSON.parse(failure.body) as { error: { code: string; message: string } };
      expect(['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']).toContain(body.error.code);
      // Nothing about the fault leaks: no stack, no SQL, no connection details.
      expect(failure.body).not.toMatch(/\bat \w+ \(|select |insert |ECONNREFUSED|127\.0\.0\.1|postgres/i);
    }
    // Recovered by itself: successes again within 10 s of the database being back.
    const firstSuccess = outcomes.find((o) => o.at > upAt && o.status < 300);
    expect(firstSuccess, 'a success after the restart').toBeDefined();
    expect(firstSuccess!.at - upAt).toBeLessThan(10_000);
    const afterRecovery = outcomes.filter((o) => o.at > firstSuccess!.at + 2000);
    expect(afterRecovery.every((o) => o.status < 300), JSON.stringify(afterRecovery.filter((o) => o.status >= 300).slice(0, 3))).toBe(true);
    expect(downAt).toBeLessThan(upAt);

    const errors = logLines.filter((line) => JSON.parse(line).level >= 50);
    expect(errors.length, 'the outage was logged').toBeGreaterThan(0);
    for (const line of logLines) {
      expect(Buffer.byteLength(line), line.slice(0, 300)).toBeLessThanOrEqual(MAX_LINE_BYTES);
      // What a serialized pg client carries: its connection parameters and type parsers.
      expect(line).not.toMatch(/connectionParameters|_types|"_connecting"|"password"|postgres:postgres@/);
    }
  });
});
