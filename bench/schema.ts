import { Agent, fetch } from 'undici';
import { adminToken, type Fixture } from './setup.js';
import { percentile } from './percentile.js';

/*
 * Schema as code (docs/environments.md):
 * - S1: POST .../schema/diff of a 50-table, 1,000-column snapshot against a project holding that
 *   schema but for ten changed columns (target p99 < 200 ms);
 * - S2: POST .../schema/apply adding a unique text column to the seeded table (--rows rows),
 *   with readers reading that table by id and by list page throughout (target: no read waits
 *   more than 1 s while the apply runs).
 */

/** An apply of the wide schema runs for minutes on a loaded machine: no headers timeout. */
const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

const TABLES = 50;
const COLUMNS = 20;
const DIFF_RUNS = 20;
const READERS = 8;

interface Snapshot {
  format: 1;
  locales: string[];
  defaultLocale: string;
  tables: { key: string; name: string; description: string; defaultStatus: string; columns: { name: string; label: string; type: string; settings: Record<string, unknown> }[] }[];
  roles: unknown[];
}

async function call<T>(api: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(api + path, {
    dispatcher: patient,
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 500)}`);
  return (await res.json()) as T;
}

const TYPES = ['text', 'integer', 'number', 'boolean', 'date', 'longtext', 'json', 'email'] as const;

function wideSnapshot(locales: string[], defaultLocale: string): Snapshot {
  return {
    format: 1,
    locales,
    defaultLocale,
    roles: [],
    tables: Array.from({ length: TABLES }, (_, t) => ({
      key: `t${String(t).padStart(2, '0')}`,
      name: `Table ${t}`,
      description: '',
      defaultStatus: 'PUBLISHED',
      columns: Array.from({ length: COLUMNS }, (_, c) => ({
        name: `c${String(c).padStart(2, '0')}`,
        label: `Column ${c}`,
        type: TYPES[(t + c) % TYPES.length],
        settings: c === 0 ? { required: true } : {},
      })),
    })),
  };
}


export interface SchemaResult {
  setupSeconds: number;
  diff: { changes: number; p50: number; p99: number; max: number };
  apply: { rows: number; seconds: number; reads: number; readErrors: number; p50: number; p99: number; max: number; readsPerSecond: number };
}

/**
 * The project S1 diffs against, made before the benchmark table is seeded: each column's indexes
 * are partial indexes of the shared `contents` table, and building one reads that whole table.
 */
export async function prepareWideSchema(api: string): Promise<{ projectId: string; snapshot: Snapshot; setupSeconds: number }> {
  const workspace = await call<{ id: string }>(api, 'POST', '/v1/workspaces', { name: 'bench schema' });
  const project = await call<{ id: string; locales: string[]; defaultLocale: string }>(api, 'POST', `/v1/workspaces/${workspace.id}/projects`, { name: 'bench schema' });
  const snapshot = wideSnapshot(project.locales, project.defaultLocale);
  const start = performance.now();
  await call(api, 'POST', `/v1/${project.id}/schema/apply`, { snapshot });
  return { projectId: project.id, snapshot, setupSeconds: (performance.now() - start) / 1000 };
}

export async function benchSchema(env: {
  api: string;
  fixture: Fixture;
  rows: number;
  wide: Awaited<ReturnType<typeof prepareWideSchema>>;
  log: (line: string) => void;
}): Promise<SchemaResult> {
  const { api, fixture, log } = env;
  const seeded = await call<Snapshot>(api, 'GET', `/v1/${fixture.projectId}/schema`);
  const { snapshot, setupSeconds } = env.wide;
  const wide = { id: env.wide.projectId };
  const changed = structuredClone(snapshot);
  for (let i = 0; i < 10; i++) changed.tables[(i * 5) % TABLES].columns[5 + i].label = `changed ${i}`;
  const times: number[] = [];
  let changes = 0;
  for (let i = 0; i < DIFF_RUNS; i++) {
    const start = performance.now();
    changes = (await call<{ changes: unknown[] }>(api, 'POST', `/v1/${wide.id}/schema/diff`, { snapshot: changed })).changes.length;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);

  // S2: readers on the seeded table while a unique column is added to it.
  const table = seeded.tables.find((t) => t.key === 'articles')!;
  const next = structuredClone(seeded);
  next.tables.find((t) => t.key === table.key)!.columns.push({ name: `sku${Date.now().toString(36)}`, label: 'SKU', type: 'text', settings: { unique: true } });
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  // Every read with its start and end: the ones that overlap the apply are what is measured.
  const reads: { start: number; end: number; ok: boolean }[] = [];
  let applying = true;
  const reader = async (n: number) => {
    for (let i = 0; applying; i++) {
      const path = (n + i) % 2 === 0 ? `${contents}/${fixture.ids[Math.floor(Math.random() * fixture.ids.length)]}` : `${contents}?size=20&withCount=false`;
      const start = performance.now();
      const res = await fetch(api + path, { headers: { authorization: `Bearer ${fixture.writeKey}` } });
      await res.arrayBuffer();
      reads.push({ start, end: performance.now(), ok: res.ok });
    }
  };
  log(`S2: adding a unique text column to the ${env.rows}-row table with ${READERS} readers reading it`);
  const readers = Array.from({ length: READERS }, (_, n) => reader(n));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const applyStart = performance.now();
  let applyEnd = applyStart;
  try {
    await call(api, 'POST', `/v1/${fixture.projectId}/schema/apply`, { snapshot: next });
  } finally {
    applyEnd = performance.now();
    applying = false;
  }
  const seconds = (applyEnd - applyStart) / 1000;
  await Promise.all(readers);
  const during = reads.filter((r) => r.end >= applyStart && r.start <= applyEnd);
  const latencies = during.map((r) => r.end - r.start).sort((a, b) => a - b);
  const readErrors = during.filter((r) => !r.ok).length;
  return {
    setupSeconds,
    diff: { changes, p50: percentile(times, 50) ?? NaN, p99: percentile(times, 99) ?? NaN, max: times.at(-1)! },
    apply: {
      rows: env.rows,
      seconds,
      reads: latencies.length,
      readErrors,
      p50: percentile(latencies, 50) ?? NaN,
      p99: percentile(latencies, 99) ?? NaN,
      max: latencies.at(-1) ?? 0,
      readsPerSecond: latencies.length / Math.max(seconds, 0.001),
    },
  };
}
