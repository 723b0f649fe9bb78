import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describeError } from '../errors/describe.js';
import { jsonStringParts, toJsonBody, withEncoding } from '../shared/encoded-json.js';
import type { McpRequest } from './request.js';
import { listTableResources, readTableResource, resourceError, TABLE_TEMPLATE } from './resources.js';
import { audienceOf, type ToolCatalog, type ToolSpec } from './tools.js';

const INSTRUCTIONS =
  'Tabula is a headless content API. Each tool is one operation of its REST API (/v1), named after it, with the same input and answer. ' +
  'Read a table resource (tabula://{projectId}/tables/{tableKey}) to learn its columns before writing rows; ' +
  'contents data is keyed by column name. Errors come back as tool errors whose text is {"error":{"code","message","details"}}.';

/**
 * One JSON Schema validator for every server: the SDK makes a fresh ajv instance (with its
 * formats) per server otherwise, which was a fifth of a tool call's CPU. The server uses it only
 * for elicitation, which this one never asks for.
 */
const validator = new AjvJsonSchemaValidator();

/**
 * A procedure's answer as a tool result: the JSON object as `structuredContent`, and as text for
 * clients that read only text. The result is encoded once, here (the transport writes these
 * bytes): the text is the JSON of `structuredContent`, so the answer is that JSON twice, once as
 * it is and once escaped as a string. A cached list page comes with its items encoded already
 * (shared/encoded-json.ts), and escaped once as well; its text is made only if something reads it.
 */
function toolResult(spec: ToolSpec, output: unknown): CallToolResult {
  if (spec.answer === 'none') return { content: [{ type: 'text', text: 'Done: nothing to return.' }] };
  const structured = (spec.answer === 'wrapped' ? { result: output ?? null } : output) as Record<string, unknown>;
  const json = toJsonBody(structured);
  if (typeof json === 'string') {
    const encoded = `{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`;
    return withEncoding({ content: [{ type: 'text', text: json }], structuredContent: structured }, () => [Buffer.from(encoded)]);
  }
  let text: string | undefined;
  const content = { type: 'text' as const, get text() { return (text ??= Buffer.concat(json).toString()); } };
  return withEncoding({ content: [content], structuredContent: structured }, () => [
    Buffer.from('{"content":[{"type":"text","text":"'),
    ...jsonStringParts(json),
    Buffer.from('"}],"structuredContent":'),
    ...json,
    Buffer.from('}'),
  ]);
}

/**
 * A refusal or failure as a tool error carrying the error body of docs/reliability.md#errors
 * (`code`, `message`, `details`), the same one `/v1` answers. It is text only: a client checks
 * `structuredContent` against the tool's output schema, which an error does not fit.
 */
function toolError(request: McpRequest, spec: ToolSpec, error: unknown): CallToolResult {
  const described = describeError(error, spec.type);
  if (described.internal) request.fault(error, spec.path);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(described.body) }] };
}

/** A tool's call, as the caller: the procedure's answer as a tool result, or its error as a tool error (never thrown). */
async function callTool(request: McpRequest, spec: ToolSpec, input: Record<string, unknown>): Promise<CallToolResult> {
  request.note(spec.path);
  try {
    return toolResult(spec, await request.run(spec.path, input));
  } catch (error) {
    return toolError(request, spec, error);
  }
}

const CALL_PARAMS = new Set(['name', 'arguments']);

/**
 * The answer to a plain `tools/call` of a tool that exists (params: `name` and an `arguments`
 * object, nothing else), without the SDK's server: the same result its handler gives, but
 * without parsing the message against four zod schemas first, three of which fail and build
 * their errors (together a tenth of a tool call's CPU). Undefined for any other message, which
 * the server answers: other methods, unknown tools, `_meta`, tasks, arguments of another shape.
 */
export function directToolCall(catalog: ToolCatalog, message: JSONRPCRequest, request: McpRequest): Promise<CallToolResult> | undefined {
  if (message.method !== 'tools/call') return undefined;
  const params = message.params as Record<string, unknown> | undefined;
  if (!params) return undefined;
  for (const key in params) if (!CALL_PARAMS.has(key)) return undefined;
  const input = params.arguments ?? {};
  if (typeof params.name !== 'string' || typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const spec = catalog.find(params.name);
  return spec && callTool(request, spec, input as Record<string, unknown>);
}

/**
 * The MCP server of `/mcp`: one for every request (stateless: nothing of a request is kept
 * between requests), whose handlers find who is asking by the request's id (`requestOf`, the
 * transport's). The tools a caller's credential may call, each running its procedure as the
 * caller, and the tables as resources.
 */
export function mcpServer(catalog: ToolCatalog, requestOf: (id: RequestId) => McpRequest, version: string): Server {
  const server = new Server({ name: 'tabula', version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator });

  server.setRequestHandler(ListToolsRequestSchema, (_request, { requestId }) => catalog.listFor(audienceOf(requestOf(requestId).principal)));

  // Registered as the SDK's Protocol registers any handler (the request parsed once against its
  // schema), not through Server's override for `tools/call`, which parses the request a second
  // time and then the result, with zod, copying it: results here are made by toolResult and
  // toolError only, and a copy would lose the encoding made beforehand. Tasks, which that
  // override also handles, are no capability of this server.
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, ({ params }, { requestId }) => {
    const spec = catalog.find(params.name);
    // A tool the caller does not see in its list is still called: its procedure answers as
    // `/v1` does (403 for a read key's write). Only names that are no tool at all are refused.
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    return callTool(requestOf(requestId), spec, params.arguments ?? {});
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [TABLE_TEMPLATE] }));
  server.setRequestHandler(ListResourcesRequestSchema, async (_request, { requestId }) => {
    const request = requestOf(requestId);
    try {
      return { resources: await listTableResources(request) };
    } catch (error) {
      throw resourceError(request, error);
    }
  });
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }, { requestId }) => readTableResource(requestOf(requestId), params.uri));
  return server;
}
