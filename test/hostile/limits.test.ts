import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { callWithin, snapshot } from './fixture.js';
import { connect, nextBeat, parseResponse, refusesConnections } from './raw-http.js';
import { until } from '../helpers/until.js';

/**
 * Size and time limits of the HTTP layer (docs/reliability.md "Security"): body size (413), request line and
 * header size (431), slow clients (slowloris: 408 and the socket closed), and a graceful
 * shutdown that lets an in-flight request finish while new connections are refused.
 */

const LIMITS = { BODY_MAX_BYTES: '2000', HEADER_MAX_BYTES: '4096', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' };
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

  it('a request line or headers over HEADER_MAX_BYTES is 431 with the error body; the server keeps serving', async () => {
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

describe('slow clients (HEADERS_TIMEOUT_MS=1000, REQUEST_TIMEOUT_MS=2000)', () => {
  it('headers sent one byte per second: 408 and the socket is closed within ~2 s; a stalled body within ~3 s', async () => {
    const headerDrip = await connect(t.url);
    const bodyDrip = await connect(t.url);
    let stop = false;
    const dripStart = Date.now();
    const dripHeaders = (async () => {
      for (const byte of 'GET /v1/workspaces HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'z'.repeat(100)) {
        if (stop || headerDrip.socket.destroyed) break;
        await headerDrip.write(byte).catch(() => {});
        await nextBeat(dripStart, 1000, () => stop || headerDrip.socket.destroyed);
      }
    })();
    // Headers at once, then a body that stops arriving (one that keeps arriving, however slowly,
    // is never cut off: test/http/request-timeout.test.ts).
    await bodyDrip.write(`POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"`);
    const [headersClosedAfter, bodyClosedAfter] = await Promise.all([headerDrip.closed, bodyDrip.closed]);
    stop = true;
    await dripHeaders;
    // The timeout plus node's 1 s check interval, plus scheduling slack on a loaded machine.
    expect(headersClosedAfter).toBeLessThan(3_500);
    expect(bodyClosedAfter).toBeLessThan(4_500);
    const answer = parseResponse(headerDrip.received());
    expect(answer.status).toBe(408);
    expect(answer.json).toMatchObject({ error: { code: 'REQUEST_TIMEOUT', details: null } });
    expect(parseResponse(bodyDrip.received()).status).toBe(408);
    expect((await callWithin(t, 'GET', '/v1/workspaces')).status).toBe(200);
  });

  it('a headers timeout longer than the request timeout is refused at start-up, naming the variable', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' })).toThrow(/HEADERS_TIMEOUT_MS/);
  });
});

describe('graceful shutdown', () => {
  // Last in the file: it stops `t`. The same through a real SIGTERM to a real API process is in
  // test/stress/shutdown.stress.ts (npm run test:stress).
  it('close(): an in-flight request completes while new connections are refused at once', async () => {
    const name = `drained-${Date.now()}`;
    const body = JSON.stringify({ name });
    const inFlight = await connect(t.url);
    await inFlight.write(`POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    // Sentinel: a request on a connection opened after the in-flight one is answered, so the
    // server has taken the in-flight connection and its headers before it starts closing.
    const sentinel = await connect(t.url);
    await sentinel.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await sentinel.closed;
    expect(parseResponse(sentinel.received()).status).toBe(200);
    let closed = false;
    const closing = t.api.close(10_000).then(() => (closed = true));
    await until(() => refusesConnections(t.url), 1_000, 'new connections refused once closing');
    expect(closed, 'still draining').toBe(false);
    await inFlight.write(body.slice(5));
    const answeredAt = Date.now();
    await inFlight.closed;
    const answer = parseResponse(inFlight.received());
    expect(answer.status, inFlight.received()).toBe(201);
    expect(answer.json).toMatchObject({ name });
    // The connection ends with its response; it was kept alive for 5 s (keepAliveTimeout) before.
    expect(answer.headers.connection).toBe('close');
    await closing;
    expect(Date.now() - answeredAt).toBeLessThan(2_500);
    const db = new pg.Client({ connectionString: t.db.url });
    await db.connect();
    try {
      expect((await db.query('select count(*)::int as n from workspace where name = $1', [name])).rows[0].n).toBe(1);
    } finally {
      await db.end();
    }
  });
});
