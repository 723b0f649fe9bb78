import type { AnyProcedure, AnyRouter } from '@trpc/server';
import type { ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import type { Meta, ProcedureAccess } from '../trpc/trpc.js';
import { withEncoding } from '../shared/encoded-json.js';
import { jsonSchemaOf, type JsonSchema } from './json-schema.js';

/**
 * One tool per procedure of a router (docs/mcp.md#tools): its name is the procedure's path
 * (`contents.list`), its description the operation's OpenAPI summary, its input the procedure's
 * zod input as JSON Schema, its output the zod output. Nothing is listed by hand: a procedure
 * added to the router is a tool at the next start.
 */
export interface ToolSpec {
  tool: Tool;
  /** The procedure's path in the router; the tool's name. */
  path: string;
  type: 'query' | 'mutation';
  access: ProcedureAccess;
  /**
   * How the procedure's answer becomes `structuredContent`, which must be a JSON object: as it
   * is (`object`), under `result` (an array), or none at all (an answer without a body, 204 on `/v1`).
   */
  answer: 'object' | 'wrapped' | 'none';
}

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  inputs: z.ZodType[];
  output?: z.ZodType;
  meta?: Meta;
}

const defOf = (procedure: AnyProcedure) => (procedure as unknown as { _def: ProcedureDef })._def;

/** A procedure that takes no input: the tool takes an empty object. */
const NO_INPUT: JsonSchema = { type: 'object', properties: {} };

/** The output as a tool declares it, and how answers are shaped to fit it (see ToolSpec.answer). */
function outputOf(output: z.ZodType | undefined): Pick<ToolSpec, 'answer'> & { schema?: JsonSchema } {
  if (!output) return { answer: 'wrapped' };
  const schema = jsonSchemaOf(output, 'output');
  // z.void(): no body.
  if (Object.keys(schema).length === 0) return { answer: 'none' };
  if (schema.type === 'object') return { answer: 'object', schema };
  return { answer: 'wrapped', schema: { type: 'object', properties: { result: schema }, required: ['result'] } };
}

/**
 * The router's procedures as tools. Left out: subscriptions (a stream of events is no tool
 * call), and procedures whose builder declares no access (who could call them is not known
 * ahead). Routes that stream bytes (uploads, downloads, import and export) are not procedures
 * and so are not tools either.
 */
export function toolsOf(router: AnyRouter): ToolSpec[] {
  const procedures = (router as unknown as { _def: { procedures: Record<string, AnyProcedure> } })._def.procedures;
  const specs: ToolSpec[] = [];
  for (const [path, procedure] of Object.entries(procedures)) {
    const def = defOf(procedure);
    const access = def.meta?.access;
    if (def.type === 'subscription' || !access) continue;
    const openapi = def.meta?.openapi;
    const input = def.inputs.length === 0 ? NO_INPUT : jsonSchemaOf(def.inputs.length === 1 ? def.inputs[0] : intersect(def.inputs), 'input');
    const { answer, schema: outputSchema } = outputOf(def.output);
    const where = openapi ? `${openapi.method} /v1${openapi.path}` : null;
    specs.push({
      path,
      type: def.type,
      access,
      answer,
      tool: {
        name: path,
        title: openapi?.summary ?? path,
        description: [openapi?.summary ?? path, openapi?.description, where && `(the same operation as ${where})`].filter(Boolean).join('. '),
        inputSchema: input as Tool['inputSchema'],
        ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
        annotations: {
          title: openapi?.summary ?? path,
          readOnlyHint: def.type === 'query',
          destructiveHint: def.type === 'mutation' && openapi?.method === 'DELETE',
          openWorldHint: false,
        },
      },
    });
  }
  return specs;
}

/** Several `.input()` calls: tRPC merges the parsed objects; their schemas hold together. */
function intersect(inputs: z.ZodType[]): z.ZodType {
  return inputs.reduce((all, next) => (all as z.ZodObject).and(next));
}

/**
 * Who is asking, as far as the tool list goes: credentials of one kind see the same tools, so
 * the list is made once per kind. A custom role's key sees writes only when a rule of its role
 * grants one.
 */
export type ToolAudience = 'key:read' | 'key:read_write' | 'key:role' | 'key:role+writes' | 'account';

export function audienceOf(principal: Principal): ToolAudience {
  if (principal.kind === 'account') return 'account';
  if (principal.role) return principal.role.rules.some((rule) => rule.actions.some((action) => action !== 'read')) ? 'key:role+writes' : 'key:role';
  return principal.permission === 'read_write' ? 'key:read_write' : 'key:read';
}

/**
 * Whether a credential of this kind can pass the procedure's own check, as docs/concepts.md and
 * docs/roles.md#granting-a-role say: read keys read; read_write keys do all but the ADMIN
 * operations (keys, webhooks, roles); a custom role reads, reads revisions, and writes where its
 * rules decide (table rows, files, releases); an account token may hold any role in some project,
 * so it sees every tool and its role is checked per call. Only a hint: every call is checked.
 */
export function offers(access: ProcedureAccess, audience: ToolAudience): boolean {
  if (access.scope === 'account') return audience === 'account';
  switch (audience) {
    case 'account':
      return true;
    case 'key:read':
      return access.level === 'read';
    case 'key:read_write':
      return access.level !== 'admin';
    case 'key:role':
    case 'key:role+writes':
      if (access.level === 'read' || access.level === 'revisions') return true;
      return access.level === 'write' && access.byRules && audience === 'key:role+writes';
  }
}

/**
 * The tools of a router, made once, and each audience's `tools/list` answer, made and encoded on
 * first use (about 95 KB of JSON for a `read_write` key: encoding it was most of a `tools/list`).
 * Nothing to invalidate: an audience's list depends on the router alone, and which audience a
 * credential is of is read from its principal on each request, after a role's change.
 */
export class ToolCatalog {
  private readonly specs: ToolSpec[];
  private readonly byName: Map<string, ToolSpec>;
  private readonly lists = new Map<ToolAudience, ListToolsResult>();

  constructor(router: AnyRouter) {
    this.specs = toolsOf(router);
    this.byName = new Map(this.specs.map((spec) => [spec.path, spec]));
  }

  get all(): readonly ToolSpec[] {
    return this.specs;
  }

  find(name: string): ToolSpec | undefined {
    return this.byName.get(name);
  }

  /** The `tools/list` result of an audience, with its JSON encoding (shared/encoded-json.ts). */
  listFor(audience: ToolAudience): ListToolsResult {
    let list = this.lists.get(audience);
    if (!list) {
      const tools = this.specs.filter((spec) => offers(spec.access, audience)).map((spec) => spec.tool);
      const bytes = [Buffer.from(JSON.stringify({ tools }))];
      list = withEncoding({ tools }, () => bytes);
      this.lists.set(audience, list);
    }
    return list;
  }
}
