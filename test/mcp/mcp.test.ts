import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, createRow, createTable, expectError, GHOST, roleKey, type Table, type World } from '../contents/fixture.js';
import { mcpClient, structured, toolError } from './client.js';

/*
 * `POST /mcp` through the SDK's own client against the real API: the tools each kind of
 * credential sees, calls that read and write, errors as tool errors, and the tables as
 * resources (docs/mcp.md).
 */

let t: TestApi;
let w: World;
let articles: Table;
const clients: Client[] = [];

const connect = async (token: string) => {
  const client = await mcpClient(t.url, token);
  clients.push(client);
  return client;
};
const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  articles = await createTable(w, [
    { name: 'title', type: 'text', settings: { localized: true } },
    { name: 'notes', type: 'text' },
    { name: 'price', type: 'number' },
  ]);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
});

describe('tools', () => {
  it('a read key sees read tools only; a read_write key writes too; an account token sees the account and admin tools', async () => {
    const read = await names(await connect(w.readKey));
    const write = await names(await connect(w.writeKey));
    const admin = await names(await connect(t.adminToken));

    expect(read).toEqual(expect.arrayContaining(['contents.list', 'contents.get', 'tables.list', 'columns.list', 'categories.list']));
    for (const name of ['contents.create', 'contents.update', 'tables.create', 'revisions.list', 'logs.list', 'apiKeys.list', 'accounts.me']) expect(read).not.toContain(name);

    expect(write).toEqual(expect.arrayContaining([...read, 'contents.create', 'contents.update', 'tables.create', 'revisions.list', 'logs.list']));
    for (const name of ['apiKeys.list', 'webhooks.create', 'roles.list', 'accounts.me', 'workspaces.list']) expect(write).not.toContain(name);

    expect(admin).toEqual(expect.arrayContaining([...write, 'apiKeys.list', 'roles.create', 'accounts.me', 'workspaces.list', 'projects.create']));
    expect(new Set(admin).size).toBe(admin.length);
    // Streams are no tools.
    expect(admin).not.toContain('events.subscribe');
  });

  it('a custom role key sees writes only when its role grants one', async () => {
    const reader = await roleKey(w, [{ table: articles.key, actions: ['read'] }]);
    const editor = await roleKey(w, [{ table: articles.key, actions: ['read', 'update'] }]);
    const reads = await names(await connect(reader.key));
    const edits = await names(await connect(editor.key));
    expect(reads).toContain('contents.list');
    expect(reads).not.toContain('contents.update');
    expect(edits).toEqual(expect.arrayContaining(['contents.list', 'contents.update', 'contents.create', 'drafts.publish']));
    // Writes beyond table rows are built-in grants' only (docs/roles.md#granting-a-role).
    for (const name of ['categories.create', 'tables.create', 'logs.list']) expect(edits).not.toContain(name);
  });

  it('describes each tool by its operation: summary, input and output schemas', async () => {
    const { tools } = await (await connect(t.adminToken)).listTools();
    const list = tools.find((tool) => tool.name === 'contents.list')!;
    expect(list.description).toContain('List contents with paging');
    expect(list.description).toContain('GET /v1/{projectId}/tables/{tableId}/contents');
    expect(list.inputSchema).toMatchObject({ type: 'object', required: ['projectId', 'tableId'] });
    expect(list.inputSchema.properties).toHaveProperty('filter');
    expect(list.outputSchema).toMatchObject({ type: 'object', properties: { list: { type: 'array' } } });
    expect(list.annotations).toMatchObject({ readOnlyHint: true });
    const remove = tools.find((tool) => tool.name === 'contents.delete')!;
    expect(remove.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(remove.outputSchema).toBeUndefined();
    // An array answer is wrapped: structuredContent is always an object.
    expect(tools.find((tool) => tool.name === 'contents.referrers')!.outputSchema).toMatchObject({ type: 'object', required: ['result'] });
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toContain('$schema');
    }
  });
});

describe('calls', () => {
  it('creates, reads, updates and lists rows as the same calls on /v1 do', async () => {
    const client = await connect(w.writeKey);
    // Listed first, so that the SDK checks every answer against the tool's output schema.
    await client.listTools();
    const base = { projectId: w.projectId, tableId: articles.key };
    const created = structured(await client.callTool({ name: 'contents.create', arguments: { ...base, data: { title: { en: 'Hello' }, price: 3 } } }));
    expect(created).toMatchObject({ status: 'PUBLISHED', version: 1, data: { title: { en: 'Hello' }, price: 3 } });

    const read = structured(await client.callTool({ name: 'contents.get', arguments: { ...base, contentsId: created.id } }));
    const sameOnV1 = await t.call('GET', `/v1/${w.projectId}/tables/${articles.key}/contents/${created.id}`, { token: w.writeKey });
    expect(read).toEqual(sameOnV1.json);

    const updated = structured(await client.callTool({ name: 'contents.update', arguments: { ...base, contentsId: created.id, data: { price: 4 }, ifVersion: 1 } }));
    expect(updated).toMatchObject({ version: 2, data: { price: 4, title: { en: 'Hello' } } });

    const listed = structured(await client.callTool({ name: 'contents.list', arguments: { ...base, filter: JSON.stringify([{ i: 'price', w: 'eq', v: 4 }]) } }));
    expect(listed.list.map((row: { id: string }) => row.id)).toEqual([created.id]);
    const listedOnV1 = await t.call('GET', `/v1/${w.projectId}/tables/${articles.key}/contents?filter=${encodeURIComponent(JSON.stringify([{ i: 'price', w: 'eq', v: 4 }]))}`, { token: w.writeKey });
    expect(listed).toEqual(listedOnV1.json);

    const referrers = structured(await client.callTool({ name: 'contents.referrers', arguments: { ...base, contentsId: created.id } }));
    expect(referrers).toEqual({ result: [] });

    const deleted = await client.callTool({ name: 'contents.delete', arguments: { ...base, contentsId: created.id } });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toBeUndefined();
    expect((await t.call('GET', `/v1/${w.projectId}/tables/${articles.key}/contents/${created.id}`)).status).toBe(404);
  });

  it('answers errors as tool errors carrying the code and message of /v1', async () => {
    const reader = await connect(w.readKey);
    const base = { projectId: w.projectId, tableId: articles.key };

    const missing = toolError(await reader.callTool({ name: 'contents.get', arguments: { ...base, contentsId: GHOST } }), 'NOT_FOUND');
    const missingOnV1 = expectError(await t.call('GET', `/v1/${w.projectId}/tables/${articles.key}/contents/${GHOST}`, { token: w.readKey }), 404, 'NOT_FOUND');
    expect(missing.message).toBe(missingOnV1.message);

    // Not in a read key's list, and refused as on /v1 when called anyway.
    const refused = toolError(await reader.callTool({ name: 'contents.create', arguments: { ...base, data: { price: 1 } } }), 'FORBIDDEN');
    const refusedOnV1 = expectError(await t.call('POST', `/v1/${w.projectId}/tables/${articles.key}/contents`, { token: w.readKey, body: { data: { price: 1 } } }), 403, 'FORBIDDEN');
    expect(refused.message).toBe(refusedOnV1.message);

    const writer = await connect(w.writeKey);
    const invalid = toolError(await writer.callTool({ name: 'contents.create', arguments: { ...base, data: { price: 'many' } } }), 'VALIDATION_ERROR');
    expect(invalid.details).toEqual([expect.objectContaining({ field: 'data.price' })]);
    toolError(await writer.callTool({ name: 'contents.list', arguments: { ...base, size: 5000 } }), 'INVALID_QUERY');
    toolError(await writer.callTool({ name: 'contents.create', arguments: { ...base, status: 'PUBLISHED' } }), 'BAD_REQUEST');

    const row = await createRow(w, articles.key, { price: 1 });
    const stale = toolError(await writer.callTool({ name: 'contents.update', arguments: { ...base, contentsId: row.id, data: { price: 2 }, ifVersion: 7 } }), 'PRECONDITION_FAILED');
    expect(stale.message).toBeTruthy();

    // Another project's key: 403 as on /v1.
    const other = await t.call('POST', `/v1/workspaces/${w.workspaceId}/projects`, { body: { name: 'Other' } });
    const otherKey = await t.call('POST', `/v1/${other.json.id}/api-keys`, { body: { name: 'k', permission: 'read' } });
    const stranger = await connect(otherKey.json.key);
    expect(toolError(await stranger.callTool({ name: 'contents.list', arguments: base }), 'FORBIDDEN').message).toBe('This key belongs to another project');

    await expect(writer.callTool({ name: 'no.such.tool', arguments: {} })).rejects.toThrow(/Unknown tool: no.such.tool/);
  });
});

describe('resources', () => {
  it('lists each table of the projects the credential reaches, and reads its columns', async () => {
    const client = await connect(w.readKey);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['tabula://{projectId}/tables/{tableKey}']);
    const { resources } = await client.listResources();
    const uri = `tabula://${w.projectId}/tables/${articles.key}`;
    expect(resources.map((r) => r.uri)).toContain(uri);
    const read = await client.readResource({ uri });
    const body = JSON.parse((read.contents[0] as { text: string }).text);
    expect(body).toMatchObject({ projectId: w.projectId, table: { key: articles.key, defaultStatus: 'PUBLISHED' } });
    expect(body.columns).toEqual([
      { name: 'title', label: expect.any(String), type: 'text', settings: expect.objectContaining({ localized: true }) },
      { name: 'notes', label: expect.any(String), type: 'text', settings: expect.any(Object) },
      { name: 'price', label: expect.any(String), type: 'number', settings: expect.any(Object) },
    ]);

    const admin = await connect(t.adminToken);
    expect((await admin.listResources()).resources.map((r) => r.uri)).toContain(uri);
  });

  it('shows only the columns the caller reads, and only the tables it reads', async () => {
    const other = await createTable(w, [{ name: 'secret', type: 'text' }]);
    const role = await roleKey(w, [{ table: articles.key, actions: ['read'], fields: { read: ['title', 'price'] } }]);
    const client = await connect(role.key);
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain(`tabula://${w.projectId}/tables/${articles.key}`);
    expect(uris).not.toContain(`tabula://${w.projectId}/tables/${other.key}`);
    const read = await client.readResource({ uri: `tabula://${w.projectId}/tables/${articles.key}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text).columns.map((c: { name: string }) => c.name)).toEqual(['title', 'price']);
    await expect(client.readResource({ uri: `tabula://${w.projectId}/tables/${other.key}` })).rejects.toThrow(/grants no read access/);
    await expect(client.readResource({ uri: `tabula://${w.projectId}/tables/nope` })).rejects.toThrow(/-32002.*Table not found/);
    await expect(client.readResource({ uri: 'https://example.com/' })).rejects.toThrow(/Unknown resource/);
  });
});

describe('writeAsDraft', () => {
  it("an agent key's update of a PUBLISHED row leaves the live row as it is and makes a draft", async () => {
    const agent = await roleKey(w, [{ table: articles.key, actions: ['read', 'update'], fields: { write: ['title.fr'] }, drafts: true, writeAsDraft: true }]);
    const row = await createRow(w, articles.key, { title: { en: 'Ferry times' }, price: 9 });
    const client = await connect(agent.key);
    await client.listTools();
    const base = { projectId: w.projectId, tableId: articles.key, contentsId: row.id };

    const answered = structured(await client.callTool({ name: 'contents.update', arguments: { ...base, data: { title: { fr: 'Horaires des ferries' } } } }));
    expect(answered.hasDraft).toBe(true);

    const live = await t.call('GET', `/v1/${w.projectId}/tables/${articles.key}/contents/${row.id}`);
    expect(live.json).toMatchObject({ status: 'PUBLISHED', version: 1, hasDraft: true, data: { title: { en: 'Ferry times' }, price: 9 } });
    expect(live.json.data.title.fr).toBeUndefined();
    const draft = await t.call('GET', `/v1/${w.projectId}/tables/${articles.key}/contents/${row.id}?version=draft`);
    expect(draft.json.data.title).toEqual({ en: 'Ferry times', fr: 'Horaires des ferries' });

    // A column outside the role's fields.write is refused, as on /v1.
    toolError(await client.callTool({ name: 'contents.update', arguments: { ...base, data: { price: 1 } } }), 'FORBIDDEN');
  });
});
