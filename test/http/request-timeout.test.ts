import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { logCapture } from '../helpers/log-capture.js';
import { until } from '../helpers/until.js';
import { buildWorld, contentsPath, createTable, type Table, type World } from '../contents/fixture.js';
import { connect, nextBeat, parseResponse, type RawConnection } from '../hostile/raw-http.js';
import { rowsFor } from '../logs/fixture.js';

/*
 * docs/configuration.md REQUEST_TIMEOUT_MS: the time a request body may stop arriving, not the
 * time a whole request may take. A body that keeps coming (a slow client, or an import that
 * reads only as fast as it writes rows) is never cut off; one that stalls is answered 408, and
 * the request log says 408. Neither a stalled body nor a client that leaves is an error-level
 * log line.
 */

const LIMITS = { REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '1000' };
const capture = logCapture();
let t: TestApi;
let w: World;
let items: Table;
let pool: pg.Pool;
let workers: RunningWorkers;

beforeAll(async () => {
  t = await startTestApi(LIMITS, { logger: createLogger('info', 'tabula', { destination: capture.stream }) });
  w = await buildWorld(t);
  items = await createTable(w, [{ name: 'title', type: 'text' }]);
  pool = createPool(t.db.url, 2, createLogger('silent'));
  workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['request-logs']);
});
afterAll(async () => {
  await workers?.stop(2_000);
  await pool?.end();
  await t?.close();
});

const errorLines = () => capture.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
const rows = async () => Number((await pool.query('select count(*) as n from contents where table_id = $1', [items.id])).rows[0].n);

/** The status the request log holds for a request id (once the worker stored it). */
async function loggedStatus(requestId: string): Promise<number> {
  await until(async () => (await rowsFor(pool, [requestId])).length === 1, 15_000, `the log entry of ${requestId}`);
  const res = await t.call('GET', `/v1/${w.projectId}/logs?size=1000`);
  expect(res.status).toBe(200);
  return (res.json.list as { requestId: string; status: number }[]).find((e) => e.requestId === requestId)!.status;
}

/** Headers of a request with a body of `length` bytes, on a raw connection. */
function head(method: string, path: string, type: string, length: number, requestId: string): string {
  return (
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.writeKey}\r\nContent-Type: ${type}\r\n` +
    `Content-Length: ${length}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`
  );
}

/** Writes `parts` one per beat of `beatMs` (a client slower than REQUEST_TIMEOUT_MS in total, never stalled that long). */
async function trickle(connection: RawConnection, parts: string[], beatMs: number): Promise<void> {
  const start = Date.now();
  for (const part of parts) {
    await connection.write(part);
    await nextBeat(start, beatMs, () => connection.socket.destroyed);
  }
}

describe('a body that keeps arriving', () => {
  it('an import sent in pieces over about three seconds (REQUEST_TIMEOUT_MS=1000) is imported', async () => {
    const before = await rows();
    const lines = Array.from({ length: 12 }, (_, i) => `${JSON.stringify({ data: { title: `slow ${i}` } })}\n`);
    const body = lines.join('');
    const connection = await connect(t.url);
    await connection.write(head('POST', `${contentsPath(w, items.id)}/import`, 'application/x-ndjson', Buffer.byteLength(body), `slow-import-${process.pid}`));
    await trickle(connection, lines, 250);
    await connection.closed;
    const answer = parseResponse(connection.received());
    expect(answer.status, connection.received()).toBe(200);
    expect(answer.json).toEqual({ imported: 12 });
    expect(await rows()).toBe(before + 12);
  });

  it('an import that takes the server longer than REQUEST_TIMEOUT_MS to write is imported', async () => {
    const before = await rows();
    const count = 8000;
    const body = Array.from({ length: count }, (_, i) => JSON.stringify({ data: { title: `bulk ${i} ${'x'.repeat(200)}` } })).join('\n');
    const res = await fetch(`${t.url}${contentsPath(w, items.id)}/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.writeKey}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ imported: count });
    expect(await rows()).toBe(before + count);
  }, 120_000);

  it('a file upload sent in pieces over about three seconds is stored', async () => {
    const boundary = 'tabulaBoundary';
    const content = 'a'.repeat(4000);
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`;
    const parts = Array.from({ length: 12 }, (_, i) => body.slice(Math.floor((i * body.length) / 12), Math.floor(((i + 1) * body.length) / 12)));
    const connection = await connect(t.url);
    await connection.write(head('POST', `/v1/${w.projectId}/files`, `multipart/form-data; boundary=${boundary}`, Buffer.byteLength(body), `slow-upload-${process.pid}`));
    await trickle(connection, parts, 250);
    await connection.closed;
    const answer = parseResponse(connection.received());
    expect(answer.status, connection.received()).toBe(201);
    expect(answer.json).toMatchObject({ name: 'slow.txt', size: 4000 });
  });
});

describe('a body that stalls', () => {
  it('is answered 408 REQUEST_TIMEOUT, logged as 408, without an error-level log line; nothing is imported', async () => {
    const before = await rows();
    const requestId = `stalled-import-${process.pid}`;
    const line = `${JSON.stringify({ data: { title: 'never' } })}\n`;
    const connection = await connect(t.url);
    await connection.write(head('POST', `${contentsPath(w, items.id)}/import`, 'application/x-ndjson', 10_000, requestId) + line);
    // Nothing more is sent: the server ends the request.
    await connection.closed;
    const answer = parseResponse(connection.received());
    expect(answer.status, connection.received()).toBe(408);
    expect(answer.json).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: expect.any(String), details: null } });
    expect(await loggedStatus(requestId)).toBe(408);
    expect(await rows()).toBe(before);
    expect(errorLines()).toEqual([]);
    expect((await t.call('GET', `/v1/${w.projectId}/tables`)).status).toBe(200);
  });

  it('a stalled upload is answered 408 too', async () => {
    const requestId = `stalled-upload-${process.pid}`;
    const connection = await connect(t.url);
    await connection.write(
      head('POST', `/v1/${w.projectId}/files`, 'multipart/form-data; boundary=b', 10_000, requestId) +
        '--b\r\nContent-Disposition: form-data; name="file"; filename="x.txt"\r\n\r\nabc',
    );
    await connection.closed;
    expect(parseResponse(connection.received()).status, connection.received()).toBe(408);
    expect(await loggedStatus(requestId)).toBe(408);
    expect(errorLines()).toEqual([]);
  });

  it('a stalled JSON body is answered 408 on /v1 and on /trpc, without an error-level log line', async () => {
    for (const path of [`/v1/${w.projectId}/tables`, '/trpc/tables.create']) {
      const connection = await connect(t.url);
      await connection.write(head('POST', path, 'application/json', 500, `stalled-json-${process.pid}`) + '{"projectId":"');
      await connection.closed;
      const answer = parseResponse(connection.received());
      expect(answer.status, `${path}: ${connection.received()}`).toBe(408);
    }
    expect(errorLines()).toEqual([]);
    expect((await t.call('GET', `/v1/${w.projectId}/tables`)).status).toBe(200);
  });

  it('a client that leaves in the middle of an import is logged as 499, without an error-level log line', async () => {
    const before = await rows();
    const requestId = `left-import-${process.pid}`;
    const connection = await connect(t.url);
    await connection.write(head('POST', `${contentsPath(w, items.id)}/import`, 'application/x-ndjson', 10_000, requestId) + `${JSON.stringify({ data: { title: 'gone' } })}\n`);
    connection.socket.destroy();
    expect(await loggedStatus(requestId)).toBe(499);
    expect(await rows()).toBe(before);
    expect(errorLines()).toEqual([]);
  });
});
