import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, toCallResult, type TestApi } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { buildWorld, createTable, expectError, type Table, type World } from '../contents/fixture.js';
import { mcpClient, structured } from './client.js';

/*
 * `/mcp` at the HTTP level behaves as `/v1` does (docs/mcp.md#errors): 401 for a missing or bad
 * credential before any MCP message is read, the same rate limit (one token per request, the
 * same bucket as the credential's `/v1` requests), request log lines and metrics.
 */

const ACCEPT = 'application/json, text/event-stream';
const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

/** A raw `POST /mcp` (no SDK): what a client that gets the HTTP level wrong meets. */
const post = (t: TestApi, body: unknown, token: string | null, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }).then(toCallResult);

describe('credentials and the HTTP level', () => {
  let t: TestApi;
  let w: World;
  beforeAll(async () => {
    t = await startTestApi();
    w = await buildWorld(t);
  });
  afterAll(async () => t?.close());

  it('answers 401 with the error body for a missing or unknown credential, as /v1 does', async () => {
    const none = expectError(await post(t, LIST_TOOLS, null), 401, 'UNAUTHORIZED');
    expect(none.message).toBe(expectError(await t.call('GET', `/v1/${w.projectId}/tables`, { token: null }), 401, 'UNAUTHORIZED').message);
    const missing = await post(t, LIST_TOOLS, null);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const unknown = 'tak_' + 'x'.repeat(43);
    expect(expectError(await post(t, LIST_TOOLS, unknown), 401, 'UNAUTHORIZED').message).toBe(
      expectError(await t.call('GET', `/v1/${w.projectId}/tables`, { token: unknown }), 401, 'UNAUTHORIZED').message,
    );
    await expect(mcpClient(t.url, unknown)).rejects.toThrow(/401|Unauthorized|UNAUTHORIZED/);
  });

  it('speaks JSON-RPC over JSON, statelessly: no session, no stream, no batch', async () => {
    const listed = await post(t, LIST_TOOLS, w.readKey);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    expect(listed.json.result.tools.length).toBeGreaterThan(5);

    const get = await fetch(`${t.url}/mcp`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${w.readKey}` } }).then(toCallResult);
    expect(expectError(get, 405, 'METHOD_NOT_ALLOWED') && get.headers.get('allow')).toBe('POST');

    const elsewhere = await fetch(`${t.url}/mcp/tools`, { method: 'POST', headers: { authorization: `Bearer ${w.readKey}` } }).then(toCallResult);
    expect(expectError(elsewhere, 404, 'NOT_FOUND').message).toBe('No route for POST /mcp/tools');

    const batch = await post(t, [LIST_TOOLS, { ...LIST_TOOLS, id: 2 }], w.readKey);
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { error: { code: 'BAD_REQUEST' } } } });

    const broken = await post(t, '{"jsonrpc":', w.readKey);
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ error: { code: -32700, data: { error: { code: 'INVALID_JSON' } } } });

    // The transport's own rules, as the SDK's Streamable HTTP transport answers them: a client
    // accepts both JSON and event streams, sends JSON, a JSON-RPC message, a protocol version it
    // knows; a notification is answered 202 without a body.
    const refusal = (status: number, code: number) => ({ status, json: { jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } } });
    expect(await post(t, LIST_TOOLS, w.readKey, { accept: 'application/json' })).toMatchObject(refusal(406, -32000));
    const bodiless = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { accept: ACCEPT, authorization: `Bearer ${w.readKey}` } }).then(toCallResult);
    expect(bodiless).toMatchObject(refusal(415, -32000));
    expect(await post(t, { jsonrpc: '2.0', id: 1 }, w.readKey)).toMatchObject(refusal(400, -32700));
    const version = await post(t, LIST_TOOLS, w.readKey, { 'mcp-protocol-version': '1999-01-01' });
    expect(version).toMatchObject(refusal(400, -32000));
    expect(version.json.error.message).toMatch(/^Bad Request: Unsupported protocol version: 1999-01-01/);
    const notification = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${w.readKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notification.status).toBe(202);
    expect(await notification.text()).toBe('');
  });

  it('answers a list tool call with the /v1 answer as its text and its structured content, cached page or not', async () => {
    const table = await createTable(w, [{ name: 'title', type: 'text' }]);
    for (const title of ['a "quoted" title', 'back\\slash', 'line\nbreak', 'é ü 😀']) {
      expect((await t.call('POST', `/v1/${w.projectId}/tables/${table.id}/contents`, { body: { data: { title } } })).status).toBe(201);
    }
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'contents.list', arguments: { projectId: w.projectId, tableId: table.id } } };
    const v1 = await fetch(`${t.url}/v1/${w.projectId}/tables/${table.id}/contents`, { headers: { authorization: `Bearer ${w.readKey}` } }).then((res) => res.text());
    for (let i = 0; i < 3; i++) {
      const answer = await post(t, call, w.readKey);
      expect(answer.status).toBe(200);
      expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.text));
      expect(answer.json.result.structuredContent.list).toHaveLength(4);
      expect(answer.json).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: v1 }], structuredContent: JSON.parse(v1) } });
    }
    // A plain call is answered without the SDK's server, one with `_meta` through it: byte for byte the same.
    const plain = await post(t, call, w.readKey);
    const throughServer = await post(t, { ...call, params: { ...call.params, _meta: { progressToken: 'p' } } }, w.readKey);
    expect(throughServer.text).toBe(plain.text);
  });

  it('answers concurrent requests that share a JSON-RPC id each as its own caller, under its own id', async () => {
    // One server answers every request: stateless clients all number from 1, and nothing of one
    // request may reach another's answer.
    const tables = [await createTable(w, [{ name: 'title', type: 'text' }]), await createTable(w, [{ name: 'title', type: 'text' }])];
    for (const [n, table] of tables.entries()) {
      for (let i = 0; i <= n; i++) expect((await t.call('POST', `/v1/${w.projectId}/tables/${table.id}/contents`, { body: { data: { title: `t${n}` } } })).status).toBe(201);
    }
    const listCall = (n: number, id: string | number, meta: boolean) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'contents.list', arguments: { projectId: w.projectId, tableId: tables[n]!.id }, ...(meta ? { _meta: { progressToken: `p${n}` } } : {}) },
    });
    const readTools = (await post(t, LIST_TOOLS, w.readKey)).json.result.tools.length as number;
    const adminTools = (await post(t, LIST_TOOLS, t.adminToken)).json.result.tools.length as number;
    expect(adminTools).toBeGreaterThan(readTools);
    const asked = Array.from({ length: 24 }, (_, i) => {
      const id = i % 3 === 0 ? 1 : i % 3 === 1 ? '1' : 2;
      return i % 2 === 0
        ? { kind: 'tools' as const, id, token: i % 4 === 0 ? w.readKey : t.adminToken, body: { ...LIST_TOOLS, id } }
        : { kind: 'list' as const, id, n: i % 4 === 1 ? 0 : 1, body: listCall(i % 4 === 1 ? 0 : 1, id, i % 5 === 0) };
    });
    const answers = await Promise.all(asked.map((a) => post(t, a.body, a.kind === 'tools' ? a.token : w.readKey)));
    for (const [i, a] of asked.entries()) {
      const answer = answers[i]!;
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.id).toBe(a.id);
      if (a.kind === 'tools') expect(answer.json.result.tools).toHaveLength(a.token === w.readKey ? readTools : adminTools);
      else expect(answer.json.result.structuredContent.list.map((row: { data: { title: string } }) => row.data.title)).toEqual(Array(a.n + 1).fill(`t${a.n}`));
    }
  });
});

describe('rate limits, request logs and metrics', () => {
  let t: TestApi;
  let w: World;
  let table: Table;
  let workers: RunningWorkers;
  beforeAll(async () => {
    t = await startTestApi({ REQUEST_LOGGING: 'true' });
    w = await buildWorld(t);
    table = await createTable(w, [{ name: 'title', type: 'text' }]);
    workers = await startWorkers(loadConfig({ LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'), ['request-logs']);
  });
  afterAll(async () => {
    await workers?.stop(2_000);
    await t?.close();
  });

  it('logs a tool call under /mcp:<tool>, with its key, and counts it in the metrics under face "mcp"', async () => {
    const client = await mcpClient(t.url, w.readKey, { 'x-request-id': `mcp-log-${process.pid}` });
    await client.listTools();
    structured(await client.callTool({ name: 'contents.list', arguments: { projectId: w.projectId, tableId: table.key } }));
    await client.close();
    const keyId = (await t.call('GET', `/v1/${w.projectId}/api-keys`)).json.list.find((k: { permission: string }) => k.permission === 'read').id;
    const entry = await until(async () => {
      const logs = await t.call('GET', `/v1/${w.projectId}/logs?size=100`);
      return (logs.json.list as { path: string }[]).find((e) => e.path === '/mcp:contents.list');
    }, 15_000, 'the log line of the tool call');
    expect(entry).toMatchObject({ method: 'POST', status: 200, apiKeyId: keyId, accountId: null, requestId: `mcp-log-${process.pid}` });

    const metrics = await fetch(`${t.url}/metrics`).then((res) => res.text());
    expect(metrics).toMatch(/tabula_http_requests_total\{face="mcp",route="contents.list",method="POST",status="200"\} 1/);
    for (const route of ['initialize', 'notifications/initialized', 'tools/list']) {
      expect(metrics).toContain(`tabula_http_requests_total{face="mcp",route="${route}",method="POST",status="${route.startsWith('notifications') ? 202 : 200}"} 1`);
    }
  });
});

describe('rate limit', () => {
  let t: TestApi;
  let w: World;
  beforeAll(async () => {
    t = await startTestApi({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '20' });
    w = await buildWorld(t);
  });
  afterAll(async () => t?.close());

  it('takes a token per request from the bucket of the credential, and answers 429 as /v1 does', async () => {
    const first = await post(t, LIST_TOOLS, w.readKey);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('20');
    let last = first;
    for (let i = 0; i < 25 && last.status !== 429; i++) last = await post(t, LIST_TOOLS, w.readKey);
    const limited = expectError(last, 429, 'RATE_LIMITED');
    expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
    // The same bucket: the key's /v1 requests are limited too, with the same answer.
    const onV1 = await t.call('GET', `/v1/${w.projectId}/tables`, { token: w.readKey });
    expect(expectError(onV1, 429, 'RATE_LIMITED').message).toMatch(/^Rate limit exceeded/);
    expect(limited.message).toMatch(/^Rate limit exceeded/);
  });
});
