import { treeTicks, TICK_MICROS } from './cpu.js';
import type { Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import type { Scenario } from './scenarios.js';

/*
 * The MCP server (docs/mcp.md), each measured in the same run:
 * - M1: a `contents.list` tool call (page 1, exact total) against the same list on /v1: the
 *   JSON-RPC message (a POST body), the server made per request and the answer given twice
 *   (structuredContent and text) cost at most 1.3x the /v1 request (target: >= 0.77 x its req/s);
 * - M2: `tools/list` as a read_write key, the tool list made and encoded once per kind of
 *   credential and kept: its throughput at the run's connections, and the latency of one call
 *   at a time (mcpToolsLatency; target: under 20 ms, p99 of 200 calls).
 */

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function mcpScenarios(env: { api: string; fixture: Fixture }): Promise<Scenario[]> {
  const { api, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const auth = { authorization: `Bearer ${fixture.writeKey}` };
  // One body per scenario, sent as it is by every request, as the /v1 GET is: a stateless
  // server answers each request on its own, so the JSON-RPC ids need not differ, and building a
  // body per request cost the load generator (on the same machine) CPU that /v1 does not.
  const rpc = (method: string, params?: unknown): LoadTarget => ({
    url: `${api}/mcp`,
    method: 'POST',
    headers: { ...auth, ...HEADERS },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
  });
  const list = rpc('tools/call', { name: 'contents.list', arguments: { projectId: fixture.projectId, tableId: fixture.tableId } });
  // A tool error is a 200 too: check once that the call measured is a successful one.
  const probe = await fetch(list.url, { method: 'POST', headers: list.headers, body: list.body });
  const answer = (await probe.json()) as { result?: { isError?: boolean; structuredContent?: { list?: unknown[] } } };
  if (!probe.ok || answer.result?.isError || !answer.result?.structuredContent?.list) throw new Error(`M1: the tool call failed: ${JSON.stringify(answer)}`);
  return [
    {
      name: 'M1-mcp-list',
      description: 'contents.list as an MCP tool call (page 1, exact total); "bare" is the same list on /v1',
      ours: list,
      bare: { url: api + contents, headers: auth },
      target: '>= 0.77 x /v1 (<= 1.3x its cost)',
    },
    {
      name: 'M2-mcp-tools',
      description: 'tools/list as a read_write key',
      ours: rpc('tools/list'),
      bare: null,
      target: 'one call < 20 ms (below)',
    },
  ];
}

export interface SingleLatency {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** The API process's CPU time per call, in ms (null where /proc cannot tell): what the call costs, whatever else the machine runs. */
  cpu: number | null;
  target: string;
}

/**
 * M2 one at a time: `tools/list` called 200 times in a row (after 20 unmeasured), each timed from
 * request to the answer's last byte, and the CPU time of the API process (`apiPid`) they took.
 */
export async function mcpToolsLatency(env: { api: string; fixture: Fixture; apiPid?: number }, calls = 200): Promise<SingleLatency> {
  const headers = { authorization: `Bearer ${env.fixture.writeKey}`, ...HEADERS };
  const call = async (id: number) => {
    const res = await fetch(`${env.api}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }) });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`M2: tools/list answered ${res.status}`);
  };
  for (let i = 0; i < 20; i++) await call(i);
  const times: number[] = [];
  const before = env.apiPid === undefined ? null : await treeTicks(env.apiPid);
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await call(i);
    times.push(performance.now() - started);
  }
  const after = env.apiPid === undefined ? null : await treeTicks(env.apiPid);
  const cpu = before === null || after === null ? null : ((after - before) * TICK_MICROS) / calls / 1000;
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return { name: 'M2 one at a time: tools/list', requests: calls, p50: at(0.5), p99: at(0.99), max: times.at(-1)!, cpu, target: 'p99 < 20 ms' };
}
