import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { callWithin } from '../hostile/fixture.js';
import { connect, parseResponse, refusesConnections } from '../hostile/raw-http.js';
import { freePort } from './processes.js';
import { until } from '../helpers/until.js';

/**
 * `npm run test:stress` only: the graceful shutdown of test/hostile/limits.test.ts through a real
 * SIGTERM to a real API process (`node --import tsx src/api.ts`), which costs a process start.
 */

const LIMITS = { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' };
let t: TestApi;

beforeAll(async () => {
  t = await startTestApi(LIMITS);
});
afterAll(() => t?.close());

describe('graceful shutdown (a real API process, SIGTERM)', () => {
  it('an in-flight request completes after SIGTERM while new connections are refused; the process exits 0', { timeout: 60_000 }, async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/api.ts'], {
      cwd: root,
      env: { ...process.env, ...LIMITS, DATABASE_URL: t.db.url, PORT: String(port), HOST: '127.0.0.1', ADMIN_EMAIL: t.adminEmail, ADMIN_TOKEN: t.adminToken, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(async () => {
        expect(child.exitCode, output).toBeNull();
        return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
      }, 30_000, 'the API process to answer /healthz', 100);
      const name = `drained-${Date.now()}`;
      const body = JSON.stringify({ name });
      const inFlight = await connect(url);
      await inFlight.write(`POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
      // Sentinel: a request on a connection opened after the in-flight one is answered, so the
      // server has taken the in-flight connection and its headers before the signal.
      const sentinel = await connect(url);
      await sentinel.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await sentinel.closed;
      expect(parseResponse(sentinel.received()).status).toBe(200);
      child.kill('SIGTERM');
      await until(() => refusesConnections(url), 2_000, 'new connections refused after SIGTERM', 50);
      expect(child.exitCode, 'still draining').toBeNull();
      await inFlight.write(body.slice(5));
      await inFlight.closed;
      const answer = parseResponse(inFlight.received());
      expect(answer.status, inFlight.received()).toBe(201);
      expect(answer.json).toMatchObject({ name });
      expect(await exited, output).toBe(0);
      const list = await callWithin(t, 'GET', '/v1/workspaces?size=1000');
      expect(list.json.list.map((w: { name: string }) => w.name)).toContain(name);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
