/**
 * `npx tsx bench/startup.ts [--runs 5] [--idle 5] [--layout name=dir ...]`: start-up time and idle
 * memory of the API and the worker, run from the TypeScript sources through tsx (as before the
 * compiled build) and compiled (`npm run build` first: dist/).
 *
 * Start-up is spawn to the first `/readyz` 200 (API) or to the "workers started" log line
 * (worker). Idle RSS is VmRSS from /proc/<pid>/status after `--idle` seconds of nothing. Each
 * round starts every variant once, in turn, so that a busy moment of the machine is shared
 * rather than landing on one variant; one unmeasured round first migrates the database and
 * warms the file cache. Prints the median per variant and writes the runs to bench/results/.
 * `--layout esbuild=dist-esbuild` adds another compiled tree with dist/'s layout.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchDatabase, freePort, root } from './setup.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    idle: { type: 'string', default: '5' },
    layout: { type: 'string', multiple: true, default: [] },
  },
});
const runs = Number(args.runs);
const idleMs = Number(args.idle) * 1000;
const log = (line: string) => process.stderr.write(`[startup] ${line}\n`);

type Role = 'api' | 'worker';

interface Variant {
  name: string;
  /** node's arguments for each role, run with the repository as working directory. */
  argv: Record<Role, string[]>;
}

function compiled(name: string, dir: string): Variant {
  const check = `./${dir}/src/check-node.js`;
  return { name, argv: { api: ['--import', check, `${dir}/src/api.js`], worker: ['--import', check, `${dir}/workers/main.js`] } };
}

const variants: Variant[] = [
  {
    name: 'tsx',
    argv: {
      api: ['--import', './src/check-node.mjs', '--import', 'tsx', 'src/api.ts'],
      worker: ['--import', './src/check-node.mjs', '--import', 'tsx', 'workers/main.ts'],
    },
  },
  compiled('compiled', 'dist'),
  ...args.layout.map((spec) => {
    const [name, dir] = spec.split('=');
    return compiled(name, dir);
  }),
];

interface Sample {
  variant: string;
  role: Role;
  startMs: number;
  rssKiB: number;
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/^VmRSS:\s+(\d+) kB/m)![1]);
}

/** Starts one process, measures it, stops it with SIGTERM and checks that it exited 0. */
async function sample(variant: Variant, role: Role, databaseUrl: string): Promise<Sample> {
  const port = await freePort();
  const env = { ...process.env, DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: String(port), NODE_ENV: 'production', LOG_FORMAT: 'json', LOG_LEVEL: 'info' } as NodeJS.ProcessEnv;
  const started = performance.now();
  const child = spawn(process.execPath, variant.argv[role], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const isReady =
    role === 'api'
      ? () => fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false)
      : async () => output.includes('"msg":"workers started"');
  for (const end = Date.now() + 60_000; !(await isReady()); ) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`${variant.name} ${role} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - started;
  await new Promise((r) => setTimeout(r, idleMs));
  const rss = await rssKiB(child.pid!);
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`${variant.name} ${role} exited ${code} on SIGTERM:\n${output}`);
  return { variant: variant.name, role, startMs, rssKiB: rss };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const db = await benchDatabase();
const samples: Sample[] = [];
try {
  for (let round = 0; round <= runs; round++) {
    for (const role of ['api', 'worker'] as const) {
      for (const variant of variants) {
        const s = await sample(variant, role, db.url);
        if (round === 0) continue; // warm-up: migrations, first account, file cache
        samples.push(s);
        log(`round ${round} ${variant.name} ${role}: ${s.startMs.toFixed(0)} ms, ${(s.rssKiB / 1024).toFixed(1)} MiB`);
      }
    }
  }
} finally {
  await db.stop();
}

const summary = variants.flatMap((variant) =>
  (['api', 'worker'] as const).map((role) => {
    const mine = samples.filter((s) => s.variant === variant.name && s.role === role);
    return {
      variant: variant.name,
      role,
      runs: mine.length,
      medianStartMs: Math.round(median(mine.map((s) => s.startMs))),
      medianIdleRssMiB: Number((median(mine.map((s) => s.rssKiB)) / 1024).toFixed(1)),
    };
  }),
);
console.table(summary);
const dir = path.join(root, 'bench', 'results');
await mkdir(dir, { recursive: true });
const file = path.join(dir, `startup-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(file, JSON.stringify({ node: process.version, idleMs, summary, samples }, null, 2));
log(`written ${path.relative(root, file)}`);
