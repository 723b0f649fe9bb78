import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest, type RequestId, type Result } from '@modelcontextprotocol/sdk/types.js';
import { toJsonBody } from '../shared/encoded-json.js';

/** What a `POST /mcp` is answered: its status and JSON body (parts of UTF-8, see shared/encoded-json.ts), or no body (202). */
export interface McpAnswer {
  status: number;
  body: string | Buffer[] | null;
}

/**
 * The Streamable HTTP transport of `POST /mcp`, stateless, with a JSON answer: the checks and
 * refusals of the SDK's WebStandardStreamableHTTPServerTransport in that mode
 * (`sessionIdGenerator: undefined, enableJsonResponse: true`), for the one message a request
 * carries (batches are refused before, src/http/mcp.ts). Written here because the SDK's one
 * builds a WHATWG Request and Response per request, parses every message it sends with zod
 * several times over to tell a response from a request, and encodes the answer with
 * JSON.stringify; together a third of a tool call's CPU. This one reads node's headers, and
 * writes an answer whose result was encoded beforehand (a tool result, the tool list) as those
 * bytes.
 *
 * One transport and one server answer every request (making, wiring and connecting an SDK
 * server per request was a tenth of a tool call's CPU). Stateless clients all number their
 * requests from 1, so each request is handed to the server under an id of the transport's own,
 * unique while it is answered, and answered under the client's id again; what the request
 * carries besides its message (`C`: who asks) is found by that id (`contextOf`).
 */
export class JsonRequestTransport<C> implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly awaiting = new Map<number, { id: RequestId; context: C; answer: (message: JSONRPCMessage) => void }>();
  private lastId = 0;

  /** `direct`: answers the requests it can without the server (a promise of their result), or undefined. */
  constructor(private readonly direct?: (request: JSONRPCRequest, context: C) => Promise<Result> | undefined) {}

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** What the request the server answers under `id` carries (a handler's `extra.requestId`). */
  contextOf(id: RequestId): C {
    const pending = typeof id === 'number' ? this.awaiting.get(id) : undefined;
    if (!pending) throw new Error(`no MCP request ${String(id)} is being answered`);
    return pending.context;
  }

  /**
   * The answer to a request, when it comes. Anything else the server sends while it answers
   * (a notification, a request of its own) has no stream to go to in JSON mode, and is dropped,
   * as the SDK's transport drops it.
   */
  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (!('result' in message || 'error' in message) || typeof message.id !== 'number') return;
    const pending = this.awaiting.get(message.id);
    if (!pending) return;
    this.awaiting.delete(message.id);
    pending.answer({ ...message, id: pending.id });
  }

  /**
   * Hands the request's message (already parsed from JSON) to the server, and answers with what
   * it sends back; or, when `direct` answers the request, with that.
   */
  handle(headers: IncomingHttpHeaders, body: unknown, context: C): Promise<McpAnswer> {
    const accept = headers.accept;
    // Accept is a list: a substring test is what the SDK's transport (and the specification) means.
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return refuse(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(headers['content-type'])) return refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    const message = asPlainRequest(body) ?? JSONRPCMessageSchema.safeParse(body).data;
    if (!message) return refuse(400, -32700, 'Parse error: Invalid JSON-RPC message');
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
      // A notification (or a response): nothing to answer, and nothing for the server either.
      // Each request stands alone, so a notification refers to nothing (a cancellation or a
      // progress report names a request of the same session, and there is none); and through
      // the one server, a `notifications/cancelled` naming an id of the transport's would stop
      // another caller's request from being answered.
      return Promise.resolve({ status: 202, body: null });
    }
    const request = message as JSONRPCRequest;
    const answered = this.direct?.(request, context);
    if (answered) return answered.then((result) => ({ status: 200, body: encodeMessage({ jsonrpc: '2.0', id: request.id, result }) }));
    return new Promise((resolve) => {
      const id = ++this.lastId;
      this.awaiting.set(id, { id: request.id, context, answer: (answer) => resolve({ status: 200, body: encodeMessage(answer) }) });
      this.onmessage?.({ ...request, id });
    });
  }
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The body as it is when it is plainly a JSON-RPC request that JSONRPCMessageSchema accepts
 * unchanged (the usual body: a tool call), else undefined and the schema decides. Parsing with
 * the schema copied the message, its params and arguments, with zod, on every call.
 */
function asPlainRequest(body: unknown): JSONRPCMessage | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const { id, params } = message;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return undefined;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  // `_meta` has a schema of its own: left to the schema.
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params) || '_meta' in params)) return undefined;
  return message as JSONRPCMessage;
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
