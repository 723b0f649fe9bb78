import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { AnyProcedure, AnyRouter } from '@trpc/server';
import type { AppDeps } from '../app-deps.js';
import type { Principal } from '../auth/principal.js';
import { methodNotAllowed, noRoute, type AppError } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import type { McpRequest } from '../mcp/request.js';
import { directToolCall, mcpServer } from '../mcp/server.js';
import { ToolCatalog } from '../mcp/tools.js';
import { JsonRequestTransport, type McpAnswer } from '../mcp/transport.js';
import { createContextFactory } from '../trpc/context.js';
import { factsOf, principalOf } from './request-tracking.js';
import { endWithJson } from './json-body.js';
import { sendError } from './send-error.js';
import { jsonBodyReader } from './v1-body.js';
import { arrivalTick, requestArrival } from '../modules/contents/list-cache/table-sync.js';

/** The server's version as MCP clients see it at `initialize`. */
const VERSION = '0.3.0';

/**
 * MCP methods a request log line and the metrics may name (docs/logs-and-metrics.md#mcp); any
 * other is `other`, so that a client cannot mint labels. A tool call is named after its tool.
 */
const KNOWN_METHODS = new Set(['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read']);

/** The transport's answer: JSON (in parts of UTF-8, written as they are), or no body (202). */
function send(res: ServerResponse, answer: McpAnswer): void {
  res.statusCode = answer.status;
  if (answer.body === null) {
    res.end();
    return;
  }
  endWithJson(res, answer.body);
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
  const procedures = (router as unknown as { _def: { procedures: Record<string, AnyProcedure> } })._def.procedures;
  const readBody = jsonBodyReader(deps.config.BODY_MAX_BYTES);
  const transport = new JsonRequestTransport<McpRequest>((request, context) => directToolCall(catalog, request, context));
  // Connected once: connect() only starts the transport and wires its callbacks.
  void mcpServer(catalog, (id) => transport.contextOf(id), VERSION).connect(transport);

  const requestOf = (req: Parameters<RequestHandler>[0], res: ServerResponse, principal: Principal): McpRequest => {
    const facts = factsOf(res);
    return {
      principal,
      run: (path, input) => {
        // Straight to the procedure, as `/v1` calls it (http/v1.ts), not through a tRPC caller
        // (a proxy per call and per path segment).
        const procedure = procedures[path];
        if (!procedure) throw new Error(`no procedure ${path}`);
        const type = procedure._def.type as 'query' | 'mutation';
        const ctx = createContext({ req, res, facts });
        const call = () => procedure({ path, getRawInput: async () => input, ctx, type, signal: undefined, batchIndex: 0 }) as Promise<unknown>;
        // A read may share a change-log read started after it arrived, as a GET on `/v1` does
        // (list-cache/table-sync.ts); without it, each waited for a read of its own, one at a
        // time per table, which queued concurrent tool calls behind one another.
        return type === 'query' ? requestArrival.run(arrivalTick(), call) : call();
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

    send(res, await transport.handle(req.headers, message, requestOf(req, res, principal)));
  };
}
