import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonRequestTransport } from '../../src/mcp/transport.js';

/**
 * The one transport all `/mcp` requests share (src/mcp/transport.ts): each request reaches the
 * server under an id of the transport's own and is answered under the caller's; notifications
 * reach nobody, so one caller's cancellation can never stop another caller's request.
 */
const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** A transport whose "server" records what it is given and answers each request with its context. */
function echoing() {
  const transport = new JsonRequestTransport<string>();
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => {
    received.push(message);
    if ('method' in message && 'id' in message) {
      const id = message.id;
      queueMicrotask(() => void transport.send({ jsonrpc: '2.0', id, result: { caller: transport.contextOf(id) } }));
    }
  };
  return { transport, received };
}

describe('the shared MCP transport', () => {
  it('answers requests that share an id each under its own id, with its own context', async () => {
    const { transport, received } = echoing();
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((caller, i) => transport.handle(HEADERS, { jsonrpc: '2.0', id: i === 2 ? 'x' : 1, method: 'ping' }, caller)),
    );
    expect(answers.map((a) => JSON.parse(a.body as string))).toEqual([
      { jsonrpc: '2.0', id: 1, result: { caller: 'a' } },
      { jsonrpc: '2.0', id: 1, result: { caller: 'b' } },
      { jsonrpc: '2.0', id: 'x', result: { caller: 'c' } },
    ]);
    // The server saw three different ids, none of them the callers'.
    expect(new Set(received.map((m) => (m as { id: unknown }).id)).size).toBe(3);
    expect(() => transport.contextOf(1)).toThrow(/no MCP request/);
  });

  it('answers notifications 202 and hands them to nobody: a cancellation cannot reach another request', async () => {
    const { transport, received } = echoing();
    let answer: (() => void) | undefined;
    transport.onmessage = (message) => {
      received.push(message);
      // Held until released: a request in flight while the notification arrives.
      if ('method' in message && 'id' in message) {
        const id = message.id;
        answer = () => void transport.send({ jsonrpc: '2.0', id, result: {} });
      }
    };
    const pending = transport.handle(HEADERS, { jsonrpc: '2.0', id: 5, method: 'ping' }, 'a');
    const internal = (received[0] as { id: number }).id;
    for (const method of ['notifications/cancelled', 'notifications/progress', 'notifications/initialized']) {
      const note = await transport.handle(HEADERS, { jsonrpc: '2.0', method, params: { requestId: internal, progressToken: internal, progress: 1 } }, 'b');
      expect(note).toEqual({ status: 202, body: null });
    }
    expect(received).toHaveLength(1);
    answer!();
    expect(JSON.parse((await pending).body as string)).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });
});
