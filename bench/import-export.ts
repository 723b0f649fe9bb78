/**
 * `npm run bench -- --only io` (targets: docs/performance.md#import-and-export):
 * - import of 100,000 NDJSON rows into a table with a unique and a reference column, streamed to
 *   the API: rows/s (target >= 20,000) and the API's RSS growth (target < 100 MB);
 * - export of the bench table (every row, NDJSON): rows/s (target >= 100,000 at 1,000,000 rows,
 *   `--rows 1000000`) and RSS growth (target < 50 MB).
 * RSS is the API's own (`tabula_process_resident_memory_bytes` on /metrics), sampled every 200 ms.
 */
import http from 'node:http';
import { adminToken, apiMemory, type Fixture } from './setup.js';

export interface IoResult {
  importRows: number;
  importSeconds: number;
  importRowsPerSecond: number;
  importRssGrowthMb: number;
  importHeapGrowthMb: number;
  exportRows: number;
  exportSeconds: number;
  exportRowsPerSecond: number;
  exportRssGrowthMb: number;
  exportHeapGrowthMb: number;
}

/**
 * Runs `work` while sampling the API's memory; answers its result and the peak growth in MB of
 * the RSS and of the V8 heap's reserved size (what the JavaScript heap takes of the RSS).
 */
async function withRss<T>(api: string, work: () => Promise<T>): Promise<{ result: T; growthMb: number; heapGrowthMb: number }> {
  const base = await apiMemory(api);
  const peak = { ...base };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = await apiMemory(api);
      peak.rss = Math.max(peak.rss, now.rss);
      peak.heapTotal = Math.max(peak.heapTotal, now.heapTotal);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  try {
    const result = await work();
    return { result, growthMb: (peak.rss - base.rss) / 1024 / 1024, heapGrowthMb: (peak.heapTotal - base.heapTotal) / 1024 / 1024 };
  } finally {
    sampling = false;
    await sampler;
  }
}

async function call(api: string, method: string, url: string, body?: unknown) {
  const res = await fetch(api + url, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

/** `count` NDJSON lines, generated as the body streams (never the whole body in memory). */
function ndjsonBody(count: number, authorIds: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i >= count) return controller.close();
      const lines: string[] = [];
      for (const end = Math.min(count, i + 1000); i < end; i++) {
        lines.push(JSON.stringify({ data: { title: `Imported ${i}`, sku: `IMP-${i}`, price: i % 500, author: authorIds[i % authorIds.length] }, status: 'PUBLISHED' }));
      }
      controller.enqueue(encoder.encode(`${lines.join('\n')}\n`));
    },
  });
}

/**
 * The lines of a streamed answer, counted with `node:http` and `Buffer.indexOf`: the client shares
 * the 2 cores with the API and PostgreSQL, and should cost about what a client saving the file
 * would. Measured 2026-11-26 07:43 UTC on a million exported rows: a JavaScript loop over every
 * byte of `fetch`'s chunks took 4.2 s of the client's CPU, `indexOf` over them 2.2 s, and curl
 * writing to /dev/null next to none.
 */
function countLines(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`export: ${res.statusCode}`));
      }
      let rows = 0;
      res.on('data', (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++;
      });
      res.on('end', () => resolve(rows));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export async function benchImportExport(env: { api: string; fixture: Fixture; log: (line: string) => void; importRows?: number }): Promise<IoResult> {
  const { api, fixture, log } = env;
  const importRows = env.importRows ?? 100_000;
  const table = await call(api, 'POST', `/v1/${fixture.projectId}/tables`, { key: `imported_${Date.now()}`, name: 'Imported' });
  const columns = `/v1/${fixture.projectId}/tables/${table.id}/columns`;
  await call(api, 'POST', columns, { name: 'title', type: 'text', settings: { required: true } });
  await call(api, 'POST', columns, { name: 'sku', type: 'text', settings: { unique: true } });
  await call(api, 'POST', columns, { name: 'price', type: 'number' });
  await call(api, 'POST', columns, { name: 'author', type: 'reference', settings: { table: fixture.authorsTableId } });
  const authors = await fetch(`${api}/v1/${fixture.projectId}/tables/${fixture.authorsTableId}/contents?size=1000&fields=id&withCount=false`, { headers: { authorization: `Bearer ${adminToken}` } });
  const authorIds = ((await authors.json()) as { list: { id: string }[] }).list.map((a) => a.id);

  log(`io: import of ${importRows} NDJSON rows (a unique and a reference column)`);
  let started = performance.now();
  const imported = await withRss(api, async () => {
    const res = await fetch(`${api}/v1/${fixture.projectId}/tables/${table.id}/contents/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.writeKey}`, 'content-type': 'application/x-ndjson' },
      body: ndjsonBody(importRows, authorIds),
      duplex: 'half',
    } as RequestInit);
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { imported: number }).imported;
  });
  const importSeconds = (performance.now() - started) / 1000;

  log('io: export of the bench table (NDJSON, every row)');
  started = performance.now();
  const exported = await withRss(api, () => countLines(`${api}/v1/${fixture.projectId}/tables/${fixture.tableId}/contents/export`, fixture.writeKey));
  const exportSeconds = (performance.now() - started) / 1000;
  return {
    importRows: imported.result,
    importSeconds,
    importRowsPerSecond: imported.result / importSeconds,
    importRssGrowthMb: imported.growthMb,
    importHeapGrowthMb: imported.heapGrowthMb,
    exportRows: exported.result,
    exportSeconds,
    exportRowsPerSecond: exported.result / exportSeconds,
    exportRssGrowthMb: exported.growthMb,
    exportHeapGrowthMb: exported.heapGrowthMb,
  };
}
