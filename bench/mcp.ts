import type { Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import type { Scenario } from './scenarios.js';

/*
 * The MCP server (docs/mcp.md), each measured in the same run:
 * - M1: a `contents.list` tool call (page 1, exact total) against the same list on /v1: the MCP
 *   transport, the server made per request and the answer given twice (structuredContent and
 *   text) cost at most 1.3x the /v1 request (target: >= 0.77 x its req/s);
 * - M2: `tools/list` as a read_write key, the tool list made once per kind of credential and
 *   kept (target: p99 < 20 ms).
 */

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function mcpScenarios(env: { api: string; fixture: Fixture }): Promise<Scenario[]> {
  const { api, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const auth = { authorization: `Bearer ${fixture.writeKey}` };
  let id = 0;
  const rpc = (method: string, params?: unknown): LoadTarget => ({
    url: `${api}/mcp`,
    method: 'POST',
    headers: { ...auth, ...HEADERS },
    next: () => ({ path: '/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, ...(params ? { params } : {}) }) }),
  });
  const list = rpc('tools/call', { name: 'contents.list', arguments: { projectId: fixture.projectId, tableId: fixture.tableId } });
  // A tool error is a 200 too: check once that the call measured is a successful one.
  const probe = await fetch(list.url, { method: 'POST', headers: list.headers, body: list.next!({}).body });
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
      target: 'p99 < 20 ms',
    },
  ];
}
