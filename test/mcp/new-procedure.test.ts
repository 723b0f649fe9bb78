import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpRoute } from '../../src/http/mcp.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { projectProcedure } from '../../src/trpc/procedures.js';
import { appRouter } from '../../src/trpc/router.js';
import { router } from '../../src/trpc/trpc.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { buildWorld, type World } from '../contents/fixture.js';
import { mcpClient, structured, toolError } from './client.js';

/*
 * The tools are made from whatever router the server is given: a procedure added to it is a tool,
 * named, described and typed by its own definition, with nothing else to change (docs/mcp.md#tools).
 */

const greetings = router({
  hello: projectProcedure('read')
    .meta({ openapi: { method: 'GET', path: '/{projectId}/greetings/hello', summary: 'Say hello to a project', protect: true } })
    .input(z.object({ projectId: z.string(), name: z.string().min(1).max(20) }))
    .output(z.object({ greeting: z.string(), projectId: z.string() }))
    .query(({ ctx, input }) => ({ greeting: `Hello, ${input.name}`, projectId: ctx.access.project.id })),
  shout: projectProcedure('write')
    .meta({ openapi: { method: 'POST', path: '/{projectId}/greetings/shout', summary: 'Shout at a project', protect: true } })
    .input(z.object({ projectId: z.string() }))
    .output(z.object({ shouted: z.literal(true) }))
    .mutation(() => ({ shouted: true as const })),
});
const testRouter = router({ ...appRouter._def.record, greetings });

let t: TestApi;
let w: World;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  t = await startTestApi();
  w = await buildWorld(t);
  server = http.createServer(express().use('/mcp', mcpRoute(t.api.deps, testRouter)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

describe('a procedure added to the router', () => {
  it('is a tool: named after its path, described by its summary, typed by its zod input and output', () => {
    const tool = toolsOf(testRouter).find((spec) => spec.path === 'greetings.hello')!.tool;
    expect(tool).toMatchObject({
      name: 'greetings.hello',
      description: expect.stringContaining('Say hello to a project'),
      inputSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 20 } }, required: ['projectId', 'name'] },
      outputSchema: { type: 'object', properties: { greeting: { type: 'string' } } },
    });
    // The app's own tools are all still there.
    expect(toolsOf(testRouter).length).toBe(toolsOf(appRouter).length + 2);
  });

  it('is listed for the credentials its access allows and answers through its procedure', async () => {
    const reader = await mcpClient(origin, w.readKey);
    const names = (await reader.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('greetings.hello');
    expect(names).not.toContain('greetings.shout');
    expect(structured(await reader.callTool({ name: 'greetings.hello', arguments: { projectId: w.projectId, name: 'agent' } }))).toEqual({
      greeting: 'Hello, agent',
      projectId: w.projectId,
    });
    toolError(await reader.callTool({ name: 'greetings.hello', arguments: { projectId: w.projectId, name: '' } }), 'INVALID_QUERY');
    toolError(await reader.callTool({ name: 'greetings.shout', arguments: { projectId: w.projectId } }), 'FORBIDDEN');

    const writer = await mcpClient(origin, w.writeKey);
    expect((await writer.listTools()).tools.map((tool) => tool.name)).toContain('greetings.shout');
    expect(structured(await writer.callTool({ name: 'greetings.shout', arguments: { projectId: w.projectId } }))).toEqual({ shouted: true });
    await Promise.all([reader.close(), writer.close()]);
  });
});
