import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { callWithin, snapshot } from './fixture.js';
import { connect, parseResponse, refusesConnections, sleep } from './raw-http.js';

/**
 * Size and time limits of the HTTP layer (README "Security"): body size (413), request line and
 * header size (431), slow clients (slowloris: 408 and the socket closed), and a graceful
 * shutdown that lets an in-flight request finish while new connections are refused.
 */

const LIMITS = { BODY_MAX_BYTES: '2000', HEADER_MAX_BYTES: '4096', HEADERS_TIMEOUT_MS: '1500', REQUEST_TIMEOUT_MS: '3000' };
let t: TestApi;

beforeAll(async () => {
  t = await startTestApi(LIMITS);
});
afterAll(() => t?.close());

describe('request size', () => {
  it('a JSON body over BODY_MAX_BYTES is 413 on /v1 (declared or chunked) and on /trpc; nothing is written', async () => {
    const before = await snapshot(t);
    const name = 'x'.repeat(3000);
    expectError(await callWithin(t, 'POST', '/v1/workspaces', { body: { name } }), 413, 'PAYLOAD_TOO_LARGE');
    // No Content-Length: the limit holds while streaming.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"name":"${name}"}`));
        controller.close();
      },
    });
    const res = await fetch(`${t.url}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    const trpc = await callWithin(t, 'POST', '/trpc/workspaces.create', { body: { name } });
    expect({ status: trpc.status, code: trpc.json?.error?.data?.error?.code }).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(await snapshot(t)).toEqual(before);
    expect((await callWithin(t, 'POST', '/v1/workspaces', { body: { name: 'x'.repeat(150) } })).status).toBe(201);
  });

  it('a request line or headers over HEADER_MAX_BYTES is 431 with the SPEC body; the server keeps serving', async () => {
    for (const [label, send] of [
      ['long path', () => fetch(`${t.url}/v1/workspaces/${'a'.repeat(5000)}`, { headers: { authorization: `Bearer ${t.adminToken}` } })],
      ['long header', () => fetch(`${t.url}/v1/workspaces`, { headers: { authorization: `Bearer ${t.adminToken}`, 'x-filler': 'y'.repeat(5000) } })],
      ['many headers', () => fetch(`${t.url}/v1/workspaces`, { headers: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'value'])) })],
    ] as const) {
      const res = await send();
      expect(res.status, label).toBe(431);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String), details: null } });
    }
    expect((await callWithin(t, 'GET', '/v1/workspaces')).status).toBe(200);
  });
});

describe('slow clients (HEADERS_TIMEOUT_MS=1500, REQUEST_TIMEOUT_MS=3000)', () => {
  it('headers sent one byte per second: 408 and the socket is closed within ~2.5 s; a trickled body within ~4 s', async () => {
    const headerDrip = await connect(t.url);
    const bodyDrip = await connect(t.url);
    let stop = false;
    const dripHeaders = (async () => {
      for (const byte of 'GET /v1/workspaces HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'z'.repeat(100)) {
        if (stop || headerDrip.socket.destroyed) break;
        await headerDrip.write(byte).catch(() => {});
        await sleep(1000);
      }
    })();
    // Headers at once, then a body that never completes.
    await bodyDrip.write(`POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"`);
    const dripBody = (async () => {
      while (!stop && !bodyDrip.socket.destroyed) {
        await bodyDrip.write('a').catch(() => {});
        await sleep(1000);
      }
    })();
    const [headersClosedAfter, bodyClosedAfter] = await Promise.all([headerDrip.closed, bodyDrip.closed]);
    stop = true;
    await Promise.all([dripHeaders, dripBody]);
    // The timeout plus node's 1 s check interval, plus scheduling slack on a loaded machine.
    expect(headersClosedAfter).toBeLessThan(4_000);
    expect(bodyClosedAfter).toBeLessThan(6_000);
    const answer = parseResponse(headerDrip.received());
    expect(answer.status).toBe(408);
    expect(answer.json).toMatchObject({ error: { code: 'REQUEST_TIMEOUT', details: null } });
    expect((await callWithin(t, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it('a headers timeout longer than the request timeout is refused at start-up, naming the variable', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' })).toThrow(/HEADERS_TIMEOUT_MS/);
  });
});

describe('graceful shutdown (a real API process, SIGTERM)', () => {
  it('an in-flight request completes after SIGTERM while new connections are refused; the process exits 0', { timeout: 60_000 }, async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
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
      for (let ready = false; !ready; await sleep(100)) {
        expect(child.exitCode, output).toBeNull();
        ready = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
      }
      const name = `drained-${Date.now()}`;
      const body = JSON.stringify({ name });
      const inFlight = await connect(url);
      await inFlight.write(`POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
      await sleep(200);
      child.kill('SIGTERM');
      let refused = false;
      for (let i = 0; i < 40 && !refused; i++) {
        refused = await refusesConnections(url);
        if (!refused) await sleep(50);
      }
      expect(refused, 'new connections refused after SIGTERM').toBe(true);
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
