import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient, FileCallError, fileContent, replaceFile, uploadFile, type FileTransport } from 'tabula/client';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** The client's file calls (multipart upload, bytes and derived images) against a real API. */

let t: TestApi;
let transport: FileTransport;
let projectId: string;

beforeAll(async () => {
  t = await startTestApi();
  transport = { baseUrl: t.url, token: t.adminToken };
  const client = createTabulaClient(transport);
  const workspace = await client.workspaces.create.mutate({ name: 'Files' });
  projectId = (await client.projects.create.mutate({ workspaceId: workspace.id, name: 'Site' })).id;
});
afterAll(() => t?.close());

describe('uploadFile and fileContent', () => {
  it('uploads a File, answers the same record as files.get, and reads the bytes back', async () => {
    const bytes = new TextEncoder().encode('hello, files');
    const record = await uploadFile(transport, projectId, new File([bytes], 'hello.txt', { type: 'text/plain' }));
    expect(record).toMatchObject({ name: 'hello.txt', size: bytes.length, mimeType: 'text/plain' });
    const client = createTabulaClient(transport);
    expect(await client.files.get.query({ projectId, fileId: record.id })).toEqual(record);
    const blob = await fileContent(transport, projectId, record.id);
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(bytes);
  });

  it('names a Blob by the name given, and derives images with transformation parameters', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const record = await uploadFile(transport, projectId, new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cover.png');
    expect(record.name).toBe('cover.png');
    const thumbnail = await fileContent(transport, projectId, record.id, { w: 16, format: 'webp' });
    expect(thumbnail.type).toBe('image/webp');
    const meta = await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata();
    expect({ width: meta.width, height: meta.height, format: meta.format }).toEqual({ width: 16, height: 12, format: 'webp' });
    const badImage = await fileContent(transport, projectId, record.id, { w: -1 }).catch((e: unknown) => e);
    expect(badImage).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect((badImage as FileCallError).message).toMatch(/\bw\b/);
  });

  it('rejects with the error of the answer, or NETWORK_ERROR when none came', async () => {
    const missing = await fileContent(transport, projectId, '0190a3f5-0000-7000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(FileCallError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const badToken = await uploadFile({ ...transport, token: 'tat_nope' }, projectId, new Blob(['x']), 'x.txt').catch((e: unknown) => e);
    expect(badToken).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const offline = await uploadFile({ ...transport, baseUrl: 'http://127.0.0.1:9' }, projectId, new Blob(['x']), 'x.txt').catch((e: unknown) => e);
    expect(offline).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });

  it('replaces the bytes of a file (same id, new hash), telling the progress; a rename with them', async () => {
    const first = await uploadFile(transport, projectId, new File(['v1'], 'notes.txt', { type: 'text/plain' }));
    const told: [number, number][] = [];
    const replaced = await replaceFile(transport, projectId, first.id, new File(['version two'], 'other.txt', { type: 'text/plain' }), undefined, (loaded, total) => told.push([loaded, total]));
    expect(replaced).toMatchObject({ id: first.id, name: 'notes.txt', size: 11 });
    expect(replaced.sha256).not.toBe(first.sha256);
    // Outside a browser (no XMLHttpRequest) the progress is told once, when all is sent.
    expect(told).toEqual([[11, 11]]);
    expect(await (await fileContent(transport, projectId, first.id)).text()).toBe('version two');
    const renamed = await replaceFile(transport, projectId, first.id, new Blob(['v3']), 'final.txt');
    expect(renamed).toMatchObject({ id: first.id, name: 'final.txt', size: 2 });
    const missing = await replaceFile(transport, projectId, '0190a3f5-0000-7000-8000-000000000000', new Blob(['x'])).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
