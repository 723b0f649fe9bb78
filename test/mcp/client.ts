import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/** The SDK's own client, connected to `<origin>/mcp` with a bearer credential. */
export async function mcpClient(origin: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'tabula-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** A successful tool call's `structuredContent`, checked against its text content. */
export function structured(result: unknown): Record<string, any> {
  const r = result as CallToolResult;
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  const text = (r.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  return r.structuredContent as Record<string, any>;
}

/** A tool error's body: the error envelope of docs/reliability.md#errors. */
export function toolError(result: unknown, code: string): { code: string; message: string; details: unknown } {
  const r = result as CallToolResult;
  expect(r.isError, JSON.stringify(r.content)).toBe(true);
  const body = JSON.parse((r.content[0] as { text: string }).text) as { error: { code: string; message: string; details: unknown } };
  expect(body.error.code, body.error.message).toBe(code);
  return body.error;
}
