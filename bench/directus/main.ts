/**
 * `npx tsx bench/directus/main.ts [--rows 100000 --duration 10 --connections 32 --rounds 2 --only Q1,Q5]`
 *
 * Tabula against Directus 11 on one PostgreSQL server and the same rows: seeds the bench table
 * through Tabula (bench/setup.ts), copies its rows into a Directus `products` collection in a
 * database of its own on the same server, starts Directus twice (data cache off, and on with its
 * memory store) and measures the same request shapes on each in turn (Tabula, Directus,
 * Directus cached, then again), with bench/load.ts's autocannon runs. Directus is installed
 * outside the repository on first use (bench/directus/install.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateSecret } from '../../src/shared/secrets.js';
import { benchApiEnv, benchDatabase, freePort, root, seed, startChild, stopChild } from '../setup.js';
import { measure, type Measurement } from '../load.js';
import { ensureDirectus } from './install.js';
import { bootstrapDirectus, copyRows, createProducts, directusDatabase, directusEnv, directusWorkDir, startDirectus, type DirectusProcess } from './server.js';
import { directusScenarios, type Shape } from './scenarios.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '2' },
    only: { type: 'string' },
  },
});
const rows = Number(args.rows);
const duration = Number(args.duration);
const connections = Number(args.connections);
const rounds = Number(args.rounds);
const log = (line: string) => process.stderr.write(`[bench:directus] ${line}\n`);

const install = await ensureDirectus(log);
log(`Directus ${install.version} in ${install.home}, run by ${install.node}`);

const db = await benchDatabase();
const directusDb = await directusDatabase(db.url);
const work = await directusWorkDir();
const apiPort = await freePort();
const api = await startChild(
  'src/api.ts',
  { ...benchApiEnv(db.url), PORT: String(apiPort) },
  `http://127.0.0.1:${apiPort}/healthz`,
);
const directusToken = generateSecret('directus_');
const servers: DirectusProcess[] = [];
const results: { shape: Shape; target: string; round: number; measurement: Measurement }[] = [];
try {
  log(`seeding ${rows} rows through Tabula`);
  const fixture = await seed(`http://127.0.0.1:${apiPort}`, db.url, rows);
  const env = directusEnv(install, directusDb.url, directusToken, work.dir);
  log('directus: bootstrap (system tables, admin with a static token)');
  await bootstrapDirectus(install, env, work.dir);
  const plain = await startDirectus(install, { ...env, CACHE_ENABLED: 'false' }, work.dir, await freePort());
  servers.push(plain);
  await createProducts(plain.url, directusToken);
  const copied = await copyRows(db.url, fixture.tableId, directusDb.url, log);
  // Started after the copy: its schema cache and first reads see the loaded table.
  const cached = await startDirectus(install, { ...env, CACHE_ENABLED: 'true', CACHE_STORE: 'memory', CACHE_TTL: '10m' }, work.dir, await freePort());
  servers.push(cached);
  log(`directus: ${copied} rows in products; servers at ${plain.url} (cache off) and ${cached.url} (cache on)`);

  const shapes = (await directusScenarios({ tabula: `http://127.0.0.1:${apiPort}`, fixture, directus: { plain: plain.url, cached: cached.url }, token: directusToken })).filter(
    (shape) => !args.only || args.only.split(',').includes(shape.name),
  );
  for (const shape of shapes) log(`${shape.name}: ${shape.description}; ${shape.check}`);
  for (let round = 1; round <= rounds; round++) {
    for (const shape of shapes) {
      for (const [target, load] of Object.entries(shape.targets)) {
        log(`round ${round}, ${shape.name}, ${target}`);
        results.push({ shape, target, round, measurement: await measure(load, { duration, connections }) });
      }
    }
  }
} finally {
  for (const server of servers) await stopChild(server.child);
  await stopChild(api);
  await directusDb.drop();
  await db.stop();
  await work.remove();
}

const pad = (s: string, n: number) => s.padEnd(n);
const num = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? '-' : n.toFixed(digits));
console.log(`\nTabula against Directus ${install.version}: ${rows} rows, ${connections} connections, ${duration} s per run, ${rounds} rounds (runs alternate)\n`);
console.log(`${pad('query', 6)}${pad('server', 18)}${pad('round', 7)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 9)}${pad('errors', 8)}${pad('CPU µs/req', 12)}bytes/row`);
for (const r of results) {
  const m = r.measurement;
  console.log(
    `${pad(r.shape.name, 6)}${pad(r.target, 18)}${pad(String(r.round), 7)}${pad(num(m.requestsPerSecond), 9)}${pad(num(m.p50, 1), 8)}${pad(num(m.p99, 1), 9)}` +
      `${pad(String(m.errors), 8)}${pad(num(m.machineCpuMicros), 12)}${num(r.shape.bytesPerRow[r.target])}`,
  );
}
console.log('\nratios (sum of Tabula req/s over the rounds / the same for Directus):');
const byName = new Map<string, typeof results>();
for (const r of results) byName.set(r.shape.name, [...(byName.get(r.shape.name) ?? []), r]);
for (const [name, list] of byName) {
  const total = (target: string) => list.filter((r) => r.target === target).reduce((sum, r) => sum + r.measurement.requestsPerSecond, 0);
  const tabula = total('tabula');
  const ratio = (target: string) => (total(target) > 0 ? `${num(tabula / total(target), 1)}x` : 'n/a (no answers within the runs)');
  console.log(`${pad(name, 6)}Tabula / Directus ${ratio('directus')}, Tabula / Directus cached ${ratio('directus-cached')}`);
}
const outDir = path.join(root, 'bench', 'results');
await mkdir(outDir, { recursive: true });
const file = path.join(outDir, `directus-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(
  file,
  JSON.stringify({ directus: install.version, rows, duration, connections, rounds, at: new Date().toISOString(), results: results.map((r) => ({ query: r.shape.name, server: r.target, round: r.round, ...r.measurement, bytesPerRow: r.shape.bytesPerRow[r.target] })) }, null, 2),
);
console.log(`\nresults written to ${path.relative(process.cwd(), file)}`);
if (results.some((r) => r.measurement.errors > 0)) process.exitCode = 1;
