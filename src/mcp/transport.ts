import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { toJsonBody } from '../shared/encoded-json.js';

/** What a `POST /mcp` is answered: its status and JSON body (parts of UTF-8, see shared/encoded-json.ts), or no body (202). */
export interface McpAnswer {
  status: number;
  body: string | Buffer[] | null;
}

/**
 * The Streamable HTTP transport of one `POST /mcp` request, stateless, with a JSON answer: the
 * checks and refusals of the SDK's WebStandardStreamableHTTPServerTransport in that mode
 * (`sessionIdGenerator: undefined, enableJsonResponse: true`), for the one message a request
 * carries (batches are refused before, src/http/mcp.ts). Written here because the SDK's one
 * builds a WHATWG Request and Response per request, parses every message it sends with zod
 * several times over to tell a response from a request, and encodes the answer with
 * JSON.stringify; together a third of a tool call's CPU. This one reads node's headers, and
 * writes an answer whose result was encoded beforehand (a tool result, the tool list) as those
 * bytes.
 */
export class StatelessJsonTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private awaiting: { id: RequestId; answer: (message: JSONRPCMessage) => void } | null = null;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /**
   * The answer to the request, when it comes. Anything else the server sends while it answers
   * (a notification, a request of its own) has no stream to go to in JSON mode, and is dropped,
   * as the SDK's transport drops it.
   */
  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (('result' in message || 'error' in message) && this.awaiting && message.id === this.awaiting.id) this.awaiting.answer(message);
  }

  /** Hands the request's message (already parsed) to the server, and answers with what it sends back. */
  handle(headers: IncomingHttpHeaders, body: unknown): Promise<McpAnswer> {
    const accept = headers.accept;
    // Accept is a list: a substring test is what the SDK's transport (and the specification) means.
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return refuse(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(headers['content-type'])) return refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success) return refuse(400, -32700, 'Parse error: Invalid JSON-RPC message');
    const message = parsed.data;
    const initialize = 'method' in message && message.method === 'initialize' && isInitializeRequest(message);
    if (!initialize) {
      // After `initialize`, a client names the protocol version it speaks; an unknown one is refused.
      const version = headers['mcp-protocol-version'];
      if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return refuse(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      }
    }
    // The schema is strict: a request is the only message with both a method and an id.
    if (!('method' in message && 'id' in message)) {
      // A notification (or a response): nothing to answer.
      this.onmessage?.(message);
      return Promise.resolve({ status: 202, body: null });
    }
    return new Promise((resolve) => {
      this.awaiting = { id: message.id, answer: (answer) => resolve({ status: 200, body: encodeMessage(answer) }) };
      this.onmessage?.(message);
    });
  }
}

/** A refusal of the transport: a JSON-RPC error without an id, as the SDK's transport writes it. */
function refuse(status: number, code: number, message: string): Promise<McpAnswer> {
  return Promise.resolve({ status, body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }) });
}

/**
 * `JSON.stringify(message)`, in the order the SDK makes a response (`result`, `jsonrpc`, `id`),
 * with a result that was encoded beforehand written as those bytes.
 */
function encodeMessage(message: JSONRPCMessage): string | Buffer[] {
  if (!('result' in message)) return JSON.stringify(message);
  const result = toJsonBody(message.result);
  const tail = `,"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`;
  if (typeof result === 'string') return `{"result":${result}${tail}`;
  return [Buffer.from('{"result":'), ...result, Buffer.from(tail)];
}
