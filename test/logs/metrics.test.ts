import { beforeAll, describe, expect, it } from 'vitest';
import { sqlOn } from '../../src/db/sql.js';
import { rollUpRequestLogs } from '../../src/modules/logs/log-store.js';
import { entry, expectError, HOUR, insertEntries, logsEnvForFile, materializeLogs, person } from './fixture.js';

const env = logsEnvForFile({ requestLogging: false });

const DAY = Date.UTC(2026, 10, 2);
const metricsPath = (workspaceId: string, query: Record<string, string> = {}) =>
  `/v1/workspaces/${workspaceId}/metrics?${new URLSearchParams(query)}`;

describe('GET /workspaces/{workspaceId}/metrics', () => {
  beforeAll(async () => {
    const { w, pool } = env;
    // Project A: hour 0 → 10 requests (2 errors) with the read key, hour 5 → 4 without a key.
    await insertEntries(pool, [
      ...Array.from({ length: 10 }, (_, i) =>
        entry(w.projectId, new Date(DAY + i * 60_000), { apiKeyId: w.readKey.id, status: i < 2 ? 500 : 200, durationMs: i < 5 ? 10 : 100 }),
      ),
      ...Array.from({ length: 4 }, (_, i) => entry(w.otherProjectId, new Date(DAY + 5 * HOUR + i * 1000), { status: 404, durationMs: 3 })),
    ]);
    await rollUpRequestLogs(pool);
  });

  it('answers the documented shape from the rollups, with live contents, files and storage', async () => {
    const { t, w } = env;
    await t.call('POST', `/v1/${w.projectId}/tables`, { body: { key: 'metrics_t', name: 'T' } });
    await t.call('POST', `/v1/${w.projectId}/tables/metrics_t/columns`, { body: { name: 'title', type: 'text' } });
    for (let i = 0; i < 3; i++) await t.call('POST', `/v1/${w.projectId}/tables/metrics_t/contents`, { body: { data: { title: `x${i}` } } });
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(1234, 1)]), 'a.bin');
    const upload = await fetch(`${t.url}/v1/${w.projectId}/files`, { method: 'POST', headers: { authorization: `Bearer ${t.adminToken}` }, body: form });
    expect(upload.status).toBe(201);

    const res = await t.call('GET', metricsPath(w.workspaceId, { from: new Date(DAY).toISOString(), to: new Date(DAY + 24 * HOUR).toISOString() }));
    expect(res.status, res.text).toBe(200);
    const body = res.json;
    expect(body).toMatchObject({
      workspaceId: w.workspaceId,
      from: new Date(DAY).toISOString(),
      to: new Date(DAY + 24 * HOUR).toISOString(),
      granularity: 'hour',
      totals: { requests: 14, errors: 6, contents: 3, files: 1, storageBytes: 1234 },
    });
    expect(body.projects).toEqual([
      { projectId: w.projectId, name: 'A', requests: 10, errors: 2, streams: 0, contents: 3, files: 1, storageBytes: 1234 },
      { projectId: w.otherProjectId, name: 'B', requests: 4, errors: 4, streams: 0, contents: 0, files: 0, storageBytes: 0 },
    ]);
    expect(body.keys).toEqual([{ apiKeyId: w.readKey.id, projectId: w.projectId, name: w.readKey.name, requests: 10, errors: 2, streams: 0 }]);
    expect(body.series).toHaveLength(24);
    expect(body.series[0]).toEqual({ bucket: new Date(DAY).toISOString(), requests: 10, errors: 2, streams: 0, p50Ms: expect.any(Number), p95Ms: expect.any(Number) });
    // Half the requests took 10 ms, half 100 ms: quantiles land in those histogram buckets.
    // (Exact to the histogram bucket: 10 ms lies in [10, 12.5), 100 ms in [100, 125).)
    expect(body.series[0].p50Ms).toBeGreaterThanOrEqual(10);
    expect(body.series[0].p50Ms).toBeLessThanOrEqual(12.5);
    expect(body.series[0].p95Ms).toBeGreaterThanOrEqual(100);
    expect(body.series[0].p95Ms).toBeLessThanOrEqual(125);
    expect(body.series[5]).toMatchObject({ requests: 4, errors: 4 });
    expect(body.series[1]).toEqual({ bucket: new Date(DAY + HOUR).toISOString(), requests: 0, errors: 0, streams: 0, p50Ms: null, p95Ms: null });
  });

  it('sums hours into days, and matches a direct count over the raw logs', async () => {
    const { t, w, pool } = env;
    const res = await t.call('GET', metricsPath(w.workspaceId, { from: new Date(DAY - 3 * 24 * HOUR).toISOString(), to: new Date(DAY + 2 * 24 * HOUR).toISOString(), granularity: 'day' }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.series.map((s: { requests: number }) => s.requests)).toEqual([0, 0, 0, 14, 0]);
    await materializeLogs(pool);
    const [{ n }] = await sqlOn(pool)<{ n: number }>({
      text: `select count(*)::int as n from raw_request_log where project_id = any($1) and created_at >= $2 and created_at < $3`,
      values: [[w.projectId, w.otherProjectId], new Date(DAY).toISOString(), new Date(DAY + 24 * HOUR).toISOString()],
    });
    expect(res.json.totals.requests).toBe(n);
  });

  it('narrows to one project and to one API key, from the same rollups', async () => {
    const { t, w } = env;
    const range = { from: new Date(DAY).toISOString(), to: new Date(DAY + 24 * HOUR).toISOString() };
    const project = await t.call('GET', metricsPath(w.workspaceId, { ...range, projectId: w.projectId }));
    expect(project.status, project.text).toBe(200);
    expect(project.json.totals).toMatchObject({ requests: 10, errors: 2 });
    expect(project.json.projects.map((p: { projectId: string }) => p.projectId)).toEqual([w.projectId]);
    expect(project.json.keys).toEqual([{ apiKeyId: w.readKey.id, projectId: w.projectId, name: w.readKey.name, requests: 10, errors: 2, streams: 0 }]);
    // Project B's hour-5 requests are not in project A's series.
    expect(project.json.series[0]).toMatchObject({ requests: 10, errors: 2 });
    expect(project.json.series[5]).toMatchObject({ requests: 0, errors: 0, p95Ms: null });

    const other = await t.call('GET', metricsPath(w.workspaceId, { ...range, projectId: w.otherProjectId }));
    expect(other.json.totals).toMatchObject({ requests: 4, errors: 4 });
    expect(other.json.keys).toEqual([]);
    expect(other.json.series[5]).toMatchObject({ requests: 4, errors: 4 });

    // Only the read key's requests: project B's keyless ones drop out; live counts stay.
    const key = await t.call('GET', metricsPath(w.workspaceId, { ...range, apiKeyId: w.readKey.id }));
    expect(key.json.totals).toMatchObject({ requests: 10, errors: 2, contents: 3 });
    expect(key.json.projects.map((p: { requests: number }) => p.requests)).toEqual([10, 0]);
    expect(key.json.series[0].requests).toBe(10);
    expect(key.json.series[5].requests).toBe(0);
    const both = await t.call('GET', metricsPath(w.workspaceId, { ...range, projectId: w.otherProjectId, apiKeyId: w.readKey.id }));
    expect(both.json.totals).toMatchObject({ requests: 0, errors: 0 });

    // A project of no workspace of this one: nothing of it, nothing of the others.
    const stranger = await t.call('GET', metricsPath(w.workspaceId, { ...range, projectId: '0190b0a0-0000-7000-8000-000000000000' }));
    expect(stranger.status, stranger.text).toBe(200);
    expect(stranger.json.projects).toEqual([]);
    expect(stranger.json.totals).toMatchObject({ requests: 0, contents: 0 });
    expectError(await t.call('GET', metricsPath(w.workspaceId, { projectId: 'not-a-uuid' })), 400, 'INVALID_QUERY');
  });

  it('is for workspace OWNER and ADMIN only', async () => {
    const { t, w } = env;
    const invited = await t.call('POST', `/v1/workspaces/${w.workspaceId}/members`, { body: { email: `metrics-admin-${process.pid}@example.com`, role: 'ADMIN' } });
    expect(invited.status, invited.text).toBe(201);
    const admin = { token: invited.json.accessToken as string };
    const member = await person(t, w.workspaceId, w.projectId, 'ADMIN');
    const allowed = await t.call('GET', metricsPath(w.workspaceId), { token: admin.token });
    expect(allowed.status, allowed.text).toBe(200);
    expectError(await t.call('GET', metricsPath(w.workspaceId), { token: member.token }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', metricsPath(w.workspaceId), { token: w.writeKey.key }), 403, 'FORBIDDEN');
    expectError(await t.call('GET', metricsPath(w.workspaceId), { token: null }), 401, 'UNAUTHORIZED');
    expectError(await t.call('GET', metricsPath('0190b0a0-0000-7000-8000-000000000000')), 404, 'NOT_FOUND');
  });

  it('refuses bad ranges with INVALID_QUERY', async () => {
    const { t, w } = env;
    const bad: Record<string, string>[] = [
      { granularity: 'week' },
      { from: 'yesterday' },
      { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      { from: '2025-01-01T00:00:00Z', to: '2026-11-01T00:00:00Z', granularity: 'hour' },
    ];
    for (const query of bad) expectError(await t.call('GET', metricsPath(w.workspaceId, query)), 400, 'INVALID_QUERY');
  });
});
