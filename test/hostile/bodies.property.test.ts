import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectError } from '../helpers/expect.js';
import { queryValue, runs, seed, storableString, unstorableString, wrongTypeFor } from './arbitraries.js';
import { callWithin, expectHandled, snapshot } from './fixture.js';
import { typedBodyFields, type BodyField, type OpenApiDocument } from './json-schema.js';
import { buildHostileWorld, fillPath, type HostileWorld } from './world.js';

/**
 * Wrong JSON types in every typed field of every JSON body the served OpenAPI document
 * describes (contents, tables and columns included), on both faces: 400 BAD_REQUEST naming
 * the field (docs/reliability.md#errors), never a coercion (trpc-to-openapi turns body schemas into coercing ones
 * in place: "false" became true), and nothing written. Also: hostile text in every query
 * parameter of every documented GET is answered without a 5xx.
 */

let t: TestApi;
let world: HostileWorld;
let doc: OpenApiDocument;
let fields: BodyField[];

beforeAll(async () => {
  t = await startTestApi({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
  world = await buildHostileWorld(t);
  doc = (await callWithin(t, 'GET', '/v1/openapi.json', { token: null })).json as OpenApiDocument;
  fields = typedBodyFields(doc);
});
afterAll(() => t?.close());

/** The tRPC procedure behind an operation: its operationId is `router-procedure`. */
const procedureOf = (field: BodyField) => {
  const operation = doc.paths[field.path][field.method.toLowerCase()] as { operationId?: string };
  return operation.operationId!.replace('-', '.');
};

/** The path parameters of `path`, with A's ids (for a tRPC input). */
const pathParams = (path: string) => {
  const filled = fillPath(path, world.ids).split('/');
  return Object.fromEntries(path.split('/').flatMap((part, i) => (part.startsWith('{') ? [[part.slice(1, -1), decodeURIComponent(filled[i])]] : [])));
};

describe('wrong JSON types in bodies', () => {
  it('the document describes the bodies of contents, tables and columns (what the property covers)', () => {
    const covered = new Set(fields.map((f) => `${f.method} ${f.path} ${f.field}`));
    for (const expected of [
      'POST /{projectId}/tables/{tableId}/contents data',
      'PUT /{projectId}/tables/{tableId}/contents/{contentsId} status',
      'POST /{projectId}/tables/{tableId}/contents publishAt',
      'POST /{projectId}/tables key',
      'PUT /{projectId}/tables/{tableId} defaultStatus',
      'POST /{projectId}/tables/{tableId}/columns settings',
      'PUT /{projectId}/tables/{tableId}/columns/{columnId} type',
      'POST /{projectId}/api-keys/{apiKeyId}/rotate graceSeconds',
    ]) {
      expect(covered.has(expected), expected).toBe(true);
    }
    expect(fields.length).toBeGreaterThan(40);
  });

  it('are 400 BAD_REQUEST naming the field on /v1, for every typed field of every operation', async () => {
    const before = await snapshot(t);
    const field = fc.constantFrom(...fields).chain((f) => fc.tuple(fc.constant(f), wrongTypeFor(f.accepted)));
    await fc.assert(
      fc.asyncProperty(field, async ([f, value]) => {
        const res = await callWithin(t, f.method, `/v1${fillPath(f.path, world.ids)}`, { body: { [f.field]: value } });
        const context = `${f.method} ${f.path} {"${f.field}": ${JSON.stringify(value)?.slice(0, 80)}}`;
        expectHandled(res, context);
        expect(expectError(res, 400, 'BAD_REQUEST').message, context).toContain(f.field);
      }),
      { numRuns: runs(Math.max(100, fields.length * 2)), seed: seed(), endOnFailure: true },
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('are 400 with the same error on /trpc too', async () => {
    const before = await snapshot(t);
    const field = fc.constantFrom(...fields).chain((f) => fc.tuple(fc.constant(f), wrongTypeFor(f.accepted)));
    await fc.assert(
      fc.asyncProperty(field, async ([f, value]) => {
        const input = { ...pathParams(f.path), [f.field]: value };
        const res = await callWithin(t, 'POST', `/trpc/${procedureOf(f)}`, { body: input });
        const context = `${procedureOf(f)} ${JSON.stringify(input).slice(0, 160)}`;
        expect(res.status, `${context}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.json.error.data.error, context).toMatchObject({ code: 'BAD_REQUEST', details: null });
        expect(res.json.error.data.error.message, context).toContain(f.field);
      }),
      { numRuns: runs(60), seed: seed(), endOnFailure: true },
    );
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('hostile text in every string field of every body', () => {
  // Last in the file: a value that is valid (most are not) really creates or renames something.
  it('is answered 2xx or a documented 4xx, never a 5xx, on /v1 and /trpc', async () => {
    const stringFields = fields.filter((f) => f.accepted.includes('string'));
    expect(stringFields.length).toBeGreaterThan(20);
    const text = fc.oneof(queryValue, unstorableString, storableString(200, 5_000));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...stringFields), text, fc.boolean(), async (f, value, viaTrpc) => {
        const res = viaTrpc
          ? await callWithin(t, 'POST', `/trpc/${procedureOf(f)}`, { body: { ...pathParams(f.path), [f.field]: value } })
          : await callWithin(t, f.method, `/v1${fillPath(f.path, world.ids)}`, { body: { [f.field]: value } });
        const context = `${viaTrpc ? procedureOf(f) : `${f.method} ${f.path}`} {"${f.field}": ${JSON.stringify(value).slice(0, 100)}}`;
        if (viaTrpc) expect(res.status, `${context}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
        else expectHandled(res, context);
      }),
      { numRuns: runs(120), seed: seed(), endOnFailure: true },
    );
  });
});

describe('hostile query parameters on every documented GET', () => {
  it('are answered 2xx or a documented 4xx, never a 5xx, and change nothing', async () => {
    const gets = Object.entries(doc.paths).flatMap(([path, item]) =>
      item.get ? [{ path, params: (item.get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name) }] : [],
    );
    const withParams = gets.filter((g) => g.params.length > 0);
    expect(withParams.length).toBeGreaterThan(10);
    const before = await snapshot(t);
    // Mostly one hostile parameter alone: with several, a bad page or size is refused first and
    // hides what the others would have done further in.
    const request = fc.constantFrom(...withParams).chain((g) =>
      fc.tuple(
        fc.constant(g.path),
        fc.oneof(
          { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...g.params), queryValue).map(([name, value]) => ({ [name]: value })) },
          { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...g.params), queryValue, { minKeys: 1, maxKeys: g.params.length }) },
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom<keyof HostileWorld['creds']>('ownerA', 'readKeyA'), async ([path, query], who) => {
        const url = `/v1${fillPath(path, world.ids)}?${new URLSearchParams(query)}`;
        const res = await callWithin(t, 'GET', url, { token: world.creds[who] });
        if (res.status === 431) expect(url.length).toBeGreaterThan(15_000);
        else expectHandled(res, `${who} GET ${url.slice(0, 300)}`);
      }),
      { numRuns: runs(150), seed: seed(), endOnFailure: true },
    );
    expect(await snapshot(t)).toEqual(before);
  });
});
