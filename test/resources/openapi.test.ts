import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** The resources of issue #5 in /v1/openapi.json, the plain-express file routes included. */

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
});
afterAll(async () => t?.close());

describe('OpenAPI document', () => {
  it('documents categories, variables, translations and files with their true statuses', async () => {
    const doc = (await t.call('GET', '/v1/openapi.json', { token: null })).json;
    const ops = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(ops('/{projectId}/categories')).toEqual(['get', 'post']);
    expect(ops('/{projectId}/variables')).toEqual(['get', 'post']);
    expect(ops('/{projectId}/translations')).toEqual(['get', 'post']);
    expect(ops('/{projectId}/translations/{translationId}')).toEqual(['delete', 'get', 'put']);
    expect(ops('/{projectId}/files')).toEqual(['get', 'post']);
    expect(ops('/{projectId}/files/{fileId}')).toEqual(['delete', 'get', 'put']);
    expect(ops('/{projectId}/files/{fileId}/content')).toEqual(['get']);

    expect(Object.keys(doc.paths['/{projectId}/categories'].post.responses)).toContain('201');
    expect(Object.keys(doc.paths['/{projectId}/translations/{translationId}'].delete.responses)).toContain('204');
    const upload = doc.paths['/{projectId}/files'].post;
    expect(upload.requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '404', '413', '415']));
    expect(upload.responses['201'].content['application/json'].schema.properties.sha256).toBeDefined();
    const replace = doc.paths['/{projectId}/files/{fileId}'].put;
    expect(Object.keys(replace.requestBody.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    const download = doc.paths['/{projectId}/files/{fileId}/content'].get;
    expect(Object.keys(download.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '400', '404', '416', '422']));
    // The image transformation parameters, with their ranges and choices.
    const query = Object.fromEntries(download.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string; schema: unknown }) => [p.name, p.schema]));
    expect(query).toEqual({
      w: { type: 'integer', minimum: 1, maximum: 4096 },
      h: { type: 'integer', minimum: 1, maximum: 4096 },
      fit: { type: 'string', enum: ['cover', 'contain', 'inside'] },
      format: { type: 'string', enum: ['webp', 'avif', 'jpeg', 'png'] },
      q: { type: 'integer', minimum: 1, maximum: 100 },
    });
    expect(download.responses['422'].content['application/json'].example.error.details[0].field).toBe('file');
  });
});
