import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { AnyRouter } from '@trpc/server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppDeps } from '../app-deps.js';
import type { Principal } from '../auth/principal.js';
import { methodNotAllowed, noRoute, type AppError } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import type { McpRequest } from '../mcp/request.js';
import { mcpServer } from '../mcp/server.js';
import { ToolCatalog } from '../mcp/tools.js';
import { createContextFactory } from '../trpc/context.js';
import { createCallerFactory } from '../trpc/trpc.js';
import { factsOf, principalOf } from './request-tracking.js';
import { sendError } from './send-error.js';
import { jsonBodyReader } from './v1-body.js';

/** The server's version as MCP clients see it at `initialize`. */
const VERSION = '0.3.0';

/**
 * MCP methods a request log line and the metrics may name (docs/logs-and-metrics.md#mcp); any
 * other is `other`, so that a client cannot mint labels. A tool call is named after its tool.
 */
const KNOWN_METHODS = new Set(['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read']);

/** The request headers the transport reads; the others (the credential first) stay out of it. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'host', 'origin'];

/**
 * The request as the SDK's web-standard transport reads it: its method, URL and headers (the
 * body is handed over parsed). The SDK's Node transport wraps the same one, converting each
 * request and answer through @hono/node-server, which was a sixth of a tool call's CPU.
 */
function webRequest(req: Parameters<RequestHandler>[0]): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(`http://${headers.get('host') ?? 'localhost'}${req.originalUrl}`, { method: req.method, headers });
}

/** The transport's answer, written as it is: status, headers and its (JSON or empty) body, as bytes (not decoded and encoded again). */
async function send(res: ServerResponse, answer: Response): Promise<void> {
  const body = Buffer.from(await answer.arrayBuffer());
  res.statusCode = answer.status;
  answer.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(body);
}

/** JSON-RPC error codes for a body that is no JSON-RPC request at all. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * A refusal before any MCP message is read (an unreadable body, a batch): the HTTP status and
 * error body of docs/reliability.md#errors, as a JSON-RPC error response, which MCP clients read.
 */
function refuse(res: ServerResponse, error: AppError, rpcCode: number): void {
  const described = describeError(error);
  res.statusCode = described.status;
  for (const [name, value] of Object.entries(described.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: rpcCode, message: described.body.error.message, data: described.body } }));
}

/**
 * `POST /mcp` (docs/mcp.md): the Model Context Protocol over its Streamable HTTP transport,
 * stateless, with JSON answers. Mounted behind the same request tracking and rate limiter as
 * `/v1`; the credential is checked here, before any MCP message (401 as on `/v1`), and each tool
 * runs its procedure through a tRPC caller whose context is built as for `/v1`, so authorization,
 * validation, request logs and metrics are those of the same call there.
 *
 * `router` is a parameter so that the tools follow whatever router the app serves.
 */
export function mcpRoute(deps: AppDeps, router: AnyRouter): RequestHandler {
  const catalog = new ToolCatalog(router);
  const createContext = createContextFactory(deps);
  const createCaller = createCallerFactory(router);
  const readBody = jsonBodyReader(deps.config.BODY_MAX_BYTES);

  const requestOf = (req: Parameters<RequestHandler>[0], res: ServerResponse, principal: Principal): McpRequest => {
    const facts = factsOf(res);
    return {
      principal,
      run: (path, input) => {
        const caller = createCaller(createContext({ req, res, facts })) as Record<string, unknown>;
        const procedure = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (input: unknown) => Promise<unknown>;
        return procedure(input);
      },
      note: (operation) => {
        facts.mcp = [operation];
      },
      fault: (error, path) => deps.logger.error({ err: error, path: `/mcp:${path}`, requestId: res.getHeader('x-request-id') }, 'request failed'),
    };
  };

  return async (req, res) => {
    if (req.path !== '/') {
      if (!req.complete) req.resume();
      sendError(res, describeError(noRoute(req.method, req.originalUrl.split('?')[0])));
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no event stream to open (GET), no session to end (DELETE).
      if (!req.complete) req.resume();
      sendError(res, describeError(methodNotAllowed(req.method, ['POST'])));
      return;
    }
    let principal: Principal;
    try {
      principal = await principalOf(deps.credentials, req, res);
    } catch (error) {
      if (!req.complete) req.resume();
      const described = describeError(error);
      if (described.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      sendError(res, described);
      return;
    }
    const read = await readBody(req, res);
    // A JSON-RPC batch (an array) is refused with the rest: one request is one message, and one
    // token of the rate limit, as on `/v1`.
    if (read.error) return refuse(res, read.error, read.error.errorCode === 'INVALID_JSON' ? PARSE_ERROR : INVALID_REQUEST);
    const message = read.body;
    const method = typeof message.method === 'string' && KNOWN_METHODS.has(message.method) ? message.method : 'other';
    factsOf(res).mcp = [method];

    const server = mcpServer(catalog, requestOf(req, res, principal), VERSION);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // Not closed afterwards: the answer is sent once every message of the request is answered, so
    // nothing is left pending, and closing made an error object (with its stack) per request.
    await server.connect(transport);
    await send(res, await transport.handleRequest(webRequest(req), { parsedBody: message }));
  };
}
