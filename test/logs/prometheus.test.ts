import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, type World } from '../auth/fixture.js';

const TOKEN = 'metrics-token-0123456789';
let t: TestApi;
let w: World;
beforeAll(async () => {
  t = await startTestApi({ METRICS_TOKEN: TOKEN });
  w = await buildWorld(t);
});
afterAll(async () => {
  await t?.close();
});

const scrape = async () => {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

/** The value of one sample line (labels in prom-client's order), or 0 when absent. */
const sample = (text: string, line: string) => {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
};

describe('GET /metrics (Prometheus)', () => {
  it('counts requests and latencies by face, procedure and status', async () => {
    const before = await scrape();
    const ok = 'tabula_http_requests_total{face="v1",route="tables.list",method="GET",status="200"}';
    const missing = 'tabula_http_requests_total{face="v1",route="tables.get",method="GET",status="404"}';
    const trpc = 'tabula_http_requests_total{face="trpc",route="tables.list",method="GET",status="200"}';
    for (let i = 0; i < 3; i++) expect((await t.call('GET', `/v1/${w.projectId}/tables`)).status).toBe(200);
    expect((await t.call('GET', `/v1/${w.projectId}/tables/nope`)).status).toBe(404);
    expect((await t.call('GET', '/v1/no/such/route/at/all')).status).toBe(404);
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId }));
    expect((await fetch(`${t.url}/trpc/tables.list?input=${input}`, { headers: { authorization: `Bearer ${t.adminToken}` } })).status).toBe(200);

    const after = await scrape();
    expect(sample(after, ok) - sample(before, ok)).toBe(3);
    expect(sample(after, missing) - sample(before, missing)).toBe(1);
    expect(sample(after, trpc) - sample(before, trpc)).toBe(1);
    expect(after).toContain('tabula_http_requests_total{face="v1",route="unmatched",method="GET",status="404"}');
    expect(sample(after, 'tabula_http_request_duration_seconds_count{face="v1",route="tables.list",method="GET",status="200"}')).toBeGreaterThanOrEqual(3);
    expect(after).toMatch(/tabula_http_request_duration_seconds_bucket\{le="0\.005",face="v1",route="tables\.list",method="GET",status="200"\} \d+/);
  });

  it('shows queue depths, failed jobs, the log buffer and process figures', async () => {
    const text = await scrape();
    for (const state of ['ready', 'deferred', 'active', 'failed']) {
      expect(text).toMatch(new RegExp(`tabula_queue_jobs\\{queue="request-logs",state="${state}"\\} \\d+`));
      expect(text).toMatch(new RegExp(`tabula_queue_jobs\\{queue="webhook-deliveries",state="${state}"\\} \\d+`));
    }
    expect(text).toMatch(/tabula_request_log_buffered \d+/);
    expect(text).toMatch(/tabula_request_log_dropped 0/);
    expect(sample(text, 'tabula_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('requires METRICS_TOKEN when one is configured', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }]) {
      const res = await fetch(`${t.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect((await res.json()) as unknown).toMatchObject({ error: { code: 'UNAUTHORIZED', details: null } });
    }
  });
});
