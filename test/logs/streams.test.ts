import { describe, expect, it } from 'vitest';
import { rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { buildSegments, readSegment } from '../../src/modules/logs/log-segment.js';
import { openSse } from '../helpers/sse.js';
import { until } from '../helpers/until.js';
import { createKey, entry, logsEnvForFile, rowsFor } from './fixture.js';

/*
 * docs/logs-and-metrics.md "Streams": an event stream (`GET /v1/{projectId}/events/stream`, the
 * tRPC subscription `events.subscribe`) is counted apart from requests. Its normal end (the
 * client closing it) is logged with the status it started with, marked `stream: true`; metrics
 * count it in `streams`, never in `requests`, `errors` or the latency percentiles; Prometheus
 * keeps it out of the request counter and latency histogram.
 */

const env = logsEnvForFile();

describe('event streams in logs and metrics', () => {
  it('are logged as streams with status 200, and counted apart from requests', async () => {
    const { t, w } = env;
    const key = await createKey(t, w.projectId, 'read_write');
    const id = (label: string) => `${label}-${process.pid}`;
    const headers = (label: string) => ({ authorization: `Bearer ${key.key}`, 'x-request-id': id(label) });

    // Two streams that the client closes, as a console tab does; a request that succeeds and one that fails.
    const sse = await openSse(`${t.url}/v1/${w.projectId}/events/stream`, headers('sse'));
    expect(sse.status).toBe(200);
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId }));
    const trpc = await openSse(`${t.url}/trpc/events.subscribe?input=${input}`, headers('subscribe'));
    expect(trpc.status).toBe(200);
    await until(() => sse.comments.includes('connected'), 5_000, 'the stream to start');
    sse.close();
    trpc.close();
    expect((await t.call('GET', `/v1/${w.projectId}/tables`, { token: key.key, headers: { 'x-request-id': id('ok') } })).status).toBe(200);
    expect((await t.call('GET', `/v1/${w.projectId}/tables/nope`, { token: key.key, headers: { 'x-request-id': id('missing') } })).status).toBe(404);

    const ids = ['sse', 'subscribe', 'ok', 'missing'].map(id);
    await until(async () => (await rowsFor(env.pool, ids)).length === 4, 15_000, 'the four log entries');
    const logs = await t.call('GET', `/v1/${w.projectId}/logs?apiKeyId=${key.id}`);
    expect(logs.status).toBe(200);
    const byId = new Map((logs.json.list as { requestId: string; status: number; stream: boolean }[]).map((e) => [e.requestId, e]));
    expect(byId.get(id('sse'))).toMatchObject({ status: 200, stream: true });
    expect(byId.get(id('subscribe'))).toMatchObject({ status: 200, stream: true });
    expect(byId.get(id('ok'))).toMatchObject({ status: 200, stream: false });
    expect(byId.get(id('missing'))).toMatchObject({ status: 404, stream: false });
    expect(logs.json.pagination.total).toBe(4);

    await rollUpRequestLogs(env.pool);
    const metrics = await t.call('GET', `/v1/workspaces/${w.workspaceId}/metrics?projectId=${w.projectId}&apiKeyId=${key.id}`);
    expect(metrics.status, metrics.text).toBe(200);
    expect(metrics.json.totals).toMatchObject({ requests: 2, errors: 1, streams: 2 });
    expect(metrics.json.projects).toEqual([expect.objectContaining({ projectId: w.projectId, requests: 2, errors: 1, streams: 2 })]);
    expect(metrics.json.keys).toEqual([expect.objectContaining({ apiKeyId: key.id, requests: 2, errors: 1, streams: 2 })]);
    const series = metrics.json.series as { requests: number; errors: number; streams: number }[];
    expect(series.reduce((sum, b) => sum + b.streams, 0)).toBe(2);
    expect(series.reduce((sum, b) => sum + b.requests, 0)).toBe(2);
    // The latency histograms hold the two requests only: a stream's length is no request latency.
    const { rows } = await env.pool.query<{ n: string }>(
      `select coalesce(sum(h.value::bigint), 0) as n from request_rollup r, jsonb_each_text(r.histogram) h where r.api_key_id = $1`,
      [key.id],
    );
    expect(Number(rows[0].n)).toBe(2);
    // Still every entry in the log's total, from the rollups now.
    expect((await t.call('GET', `/v1/${w.projectId}/logs?apiKeyId=${key.id}`)).json.pagination.total).toBe(4);

    const prometheus = await (await fetch(`${t.url}/metrics`)).text();
    expect(prometheus).toMatch(/^tabula_http_streams_total\{face="trpc",route="events.subscribe",method="GET",status="200"\} [1-9]/m);
    expect(prometheus).toMatch(/^tabula_http_streams_total\{face="v1",[^}]*\} [1-9]/m);
    expect(prometheus).not.toMatch(/^tabula_http_request_duration_seconds_count\{face="trpc",route="events.subscribe"/m);
    expect(prometheus).not.toMatch(/^tabula_http_requests_total\{[^}]*route="events.subscribe"/m);
  });

  it('a subscription refused before it starts is a request, logged with the refusal’s status', async () => {
    const { t, w } = env;
    const key = await createKey(t, w.projectId, 'read_write');
    const requestId = `refused-${process.pid}`;
    // A blank `types` names nothing: 400 before the stream starts.
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId, types: '' }));
    const res = await fetch(`${t.url}/trpc/events.subscribe?input=${input}`, {
      headers: { authorization: `Bearer ${key.key}`, accept: 'text/event-stream', 'x-request-id': requestId },
    });
    expect(res.status).toBe(400);
    await res.text();
    await until(async () => (await rowsFor(env.pool, [requestId])).length === 1, 15_000, 'the log entry');
    const logs = await t.call('GET', `/v1/${w.projectId}/logs?apiKeyId=${key.id}`);
    expect(logs.json.list).toEqual([expect.objectContaining({ requestId, status: 400, stream: false })]);
  });
});

describe('stream entries in segments', () => {
  it('keep their mark through a segment (as stored, merged or converted), in their own facet', async () => {
    const projectId = '0190b0a0-0000-7000-8000-000000000001';
    const at = new Date('2026-11-27T10:00:00Z');
    const entries = [entry(projectId, at), entry(projectId, at, { stream: true, durationMs: 9000 }), entry(projectId, at, { id: '0190b0a0-0000-7000-8000-0000000000aa', stream: true } as never)];
    const [segment] = await buildSegments(entries);
    expect(segment.facets).toEqual([
      expect.objectContaining({ s: 200, n: 1, d: 5 }),
      expect.objectContaining({ s: 200, n: 2, t: 1 }),
    ]);
    expect(segment.facets[0]).not.toHaveProperty('t');
    const read = await readSegment(segment.id, Buffer.from(segment.z, 'base64'));
    expect(read.map((e) => e.stream ?? false)).toEqual([false, true, true]);
    expect(read[2].id).toBe('0190b0a0-0000-7000-8000-0000000000aa');
  });
});
