import { ErrorCode, McpError, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import type { McpRequest } from './request.js';

/*
 * Each table of a project is a resource (docs/mcp.md#resources): its columns, their types and
 * settings, as the caller reads them, so that an agent learns the schema before it writes. Both
 * answers are made of the procedures `/v1` answers with (tables.list, tables.get, columns.list),
 * run as the caller: whatever the caller may not read is absent, as it is there.
 */

export const TABLE_TEMPLATE: ResourceTemplate = {
  uriTemplate: 'tabula://{projectId}/tables/{tableKey}',
  name: 'table',
  title: 'A table of a project: its columns, their types and settings',
  mimeType: 'application/json',
};

const TABLE_URI = /^tabula:\/\/([^/]+)\/tables\/([^/]+)$/;
/** Lists are read a page of this many at a time (the largest page a list gives). */
const PAGE = 1000;

interface Page<T> {
  list: T[];
  pagination: { hasNext: boolean };
}
interface TableItem {
  id: string;
  key: string;
  name: string;
  description: string;
  defaultStatus: string;
}
interface ColumnItem {
  name: string;
  label: string;
  type: string;
  settings: Record<string, unknown>;
}

/** Every item of a paged list procedure. */
async function readAll<T>(request: McpRequest, path: string, input: Record<string, unknown>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const answer = (await request.run(path, { ...input, page, size: PAGE, withCount: 'false' })) as Page<T>;
    items.push(...answer.list);
    if (!answer.pagination.hasNext) return items;
  }
}

/** The projects the caller reaches: a key's own; an account's, in each of its workspaces. */
async function projectsOf(request: McpRequest): Promise<string[]> {
  const { principal } = request;
  if (principal.kind === 'apiKey') return [principal.projectId];
  const workspaces = await readAll<{ id: string }>(request, 'workspaces.list', {});
  const projects = await Promise.all(workspaces.map((w) => readAll<{ id: string }>(request, 'projects.list', { workspaceId: w.id })));
  return projects.flat().map((p) => p.id);
}

/** The tables a caller reads in a project; none where it may read none (403). */
async function tablesOf(request: McpRequest, projectId: string): Promise<TableItem[]> {
  try {
    return await readAll<TableItem>(request, 'tables.list', { projectId });
  } catch (error) {
    if (error instanceof AppError && error.status === 403) return [];
    throw error;
  }
}

export async function listTableResources(request: McpRequest): Promise<Resource[]> {
  const resources: Resource[] = [];
  for (const projectId of await projectsOf(request)) {
    for (const table of await tablesOf(request, projectId)) {
      resources.push({
        uri: `tabula://${projectId}/tables/${table.key}`,
        name: table.key,
        title: table.name,
        description: `The columns of table "${table.key}" of project ${projectId}${table.description ? `: ${table.description}` : ''}`,
        mimeType: 'application/json',
      });
    }
  }
  return resources;
}

/** `{ projectId, table, columns }`: the table's columns the caller reads, in position order. */
export async function readTableResource(request: McpRequest, uri: string) {
  const match = TABLE_URI.exec(uri);
  if (!match) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}: resources are ${TABLE_TEMPLATE.uriTemplate}`);
  const [projectId, tableId] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
  try {
    const table = (await request.run('tables.get', { projectId, tableId })) as TableItem;
    const columns = await readAll<ColumnItem>(request, 'columns.list', { projectId, tableId });
    const body = {
      projectId,
      table: { id: table.id, key: table.key, name: table.name, description: table.description, defaultStatus: table.defaultStatus },
      columns: columns.map(({ name, label, type, settings }) => ({ name, label, type, settings })),
    };
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body) }] };
  } catch (error) {
    throw resourceError(request, error);
  }
}

/** The error envelope of docs/reliability.md#errors as a JSON-RPC error (`data`); 404 as MCP's "resource not found". */
export function resourceError(request: McpRequest, error: unknown): McpError {
  if (error instanceof McpError) return error;
  const described = describeError(error, 'query');
  if (described.internal) request.fault(error, 'resources');
  const code = described.status === 404 ? -32002 : described.internal ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  return new McpError(code, described.body.error.message, described.body);
}
