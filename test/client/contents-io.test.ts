import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient, exportContents, FileCallError, importContents, type FileTransport } from 'tabula/client';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** The client's contents import and export calls (the streamed REST routes) against a real API. */

let t: TestApi;
let transport: FileTransport;
let projectId: string;
let tableId: string;

beforeAll(async () => {
  t = await startTestApi();
  transport = { baseUrl: t.url, token: t.adminToken };
  const client = createTabulaClient(transport);
  const workspace = await client.workspaces.create.mutate({ name: 'IO' });
  projectId = (await client.projects.create.mutate({ workspaceId: workspace.id, name: 'Shop' })).id;
  tableId = (await client.tables.create.mutate({ projectId, key: 'items', name: 'Items' })).id;
  await client.columns.create.mutate({ projectId, tableId, name: 'name', label: 'Name', type: 'text', settings: { required: true } });
  await client.columns.create.mutate({ projectId, tableId, name: 'price', label: 'Price', type: 'number', settings: { min: 0 } });
});
afterAll(() => t?.close());

describe('importContents and exportContents', () => {
  it('imports CSV and NDJSON, reporting the bytes sent, and answers a 422 with the lines named', async () => {
    const sent: number[] = [];
    const csv = new Blob(['name,price\r\nPen,2\r\nInk,5\r\n']);
    expect(await importContents(transport, projectId, tableId, csv, { format: 'csv', onProgress: (loaded) => sent.push(loaded) })).toEqual({ imported: 2 });
    expect(sent).toEqual([csv.size]);
    const ndjson = new Blob([[{ data: { name: 'Pad', price: 9 } }, { data: { price: -1 } }].map((l) => JSON.stringify(l)).join('\n')]);
    const refused = await importContents(transport, projectId, 'items', ndjson, { format: 'ndjson' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FileCallError);
    expect(refused).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
    expect((refused as FileCallError).details!.map((d) => d.field).sort()).toEqual(['line 2: data.name', 'line 2: data.price']);
  });

  it('exports the rows a filter and sort select, with progress as bytes and lines arrive', async () => {
    const seen: { bytes: number; lines: number }[] = [];
    const blob = await exportContents(
      transport,
      projectId,
      tableId,
      { format: 'ndjson', filter: JSON.stringify([{ i: 'price', w: 'gt', v: 1 }]), sort: JSON.stringify([{ i: 'price', o: 'desc' }]) },
      (received) => seen.push(received),
    );
    const rows = (await blob.text()).trim().split('\n').map((line) => JSON.parse(line) as { data: { name: string } });
    expect(rows.map((r) => r.data.name)).toEqual(['Ink', 'Pen']);
    expect(seen.at(-1)).toEqual({ bytes: blob.size, lines: 2 });
    const csv = await exportContents(transport, projectId, tableId, { format: 'csv', fields: 'name', sort: JSON.stringify([{ i: 'name', o: 'asc' }]) });
    const cells = (await csv.text()).split(/\r?\n/).filter((line) => line !== '').map((line) => line.split(','));
    expect(cells.map((line) => line.slice(1).join(','))).toEqual(['name', 'Ink', 'Pen']);
    const bad = await exportContents(transport, projectId, tableId, { format: 'xml' as 'csv' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });
});
