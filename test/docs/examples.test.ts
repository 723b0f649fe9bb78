import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/workers.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { curlBlocks, danglingNotRunMarkers, prepareBlock, strayCurlBlocks, type CodeBlock } from './markdown.js';

/**
 * The curl examples of README.md and docs/*.md run as written, against a real API (in-process,
 * with the workers) on a fresh database: each page's ```sh blocks that call curl, in order, in
 * one bash process (so a block may use variables an earlier block of its page set), with
 * `set -euo pipefail` and a `curl` function that fails the block on any answer but a 2xx, or the
 * status the command declares with `# → NNN` (see markdown.ts).
 */

const root = path.resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(path.join(root, page), 'utf8');

/**
 * Blocks that call curl but cannot run here, and why. Marking a block `<!-- not-run: … -->` in
 * a page fails this test until the block is listed here too.
 */
const STREAM = 'a stream stays open until its client stops it; test/events/stream.test.ts makes these requests';
const NOT_RUN: { page: string; reason: string }[] = [
  { page: 'README.md', reason: STREAM },
  { page: 'docs/operations.md', reason: 'needs docker and a PostgreSQL server reachable from the containers' },
  { page: 'docs/realtime.md', reason: STREAM },
];

/** The server address the docs write; the harness replaces it by the test server's. */
const DOCUMENTED_ORIGIN = 'http://127.0.0.1:3000';
/** The webhook receiver the docs write; the harness replaces it by a local one (answers 204). */
const DOCUMENTED_RECEIVER = 'https://example.com/hooks/tabula';

/** Sourced first by every page's script: strict bash and the checking `curl` function. */
const HARNESS = path.join(import.meta.dirname, 'harness.sh');

interface CurlCall {
  block: number;
  status: string;
  expected: string;
  command: string;
}

interface PageRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Blocks (by index in the page's run list) that ran to their end. */
  finished: number[];
  calls: CurlCall[];
}

let t: TestApi;
let workers: RunningWorkers;
let storageDir: string;
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  storageDir = await mkdtemp(path.join(os.tmpdir(), 'tabula-docs-'));
  receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks/tabula`;
  // Webhooks are delivered to the local receiver instead of example.com: a private address,
  // allowed as for local testing.
  const env = { WEBHOOKS_ALLOW_PRIVATE: 'true', STORAGE_DIR: storageDir };
  t = await startTestApi(env);
  // As `npm start` runs them: logs are ingested, events delivered (attempted), rows published.
  workers = await startWorkers(loadConfig({ ...env, LOG_LEVEL: 'silent' }), t.db.url, createLogger('silent'));
});

afterAll(async () => {
  await workers?.stop(2_000);
  await t?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await rm(storageDir, { recursive: true, force: true });
});

/** Runs the page's blocks in one bash process in a fresh directory; never rejects on failure. */
async function runPage(page: string, blocks: CodeBlock[]): Promise<PageRun> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-docs-page-'));
  const log = path.join(dir, '.curl-log');
  const progress = path.join(dir, '.progress');
  const script = [`source '${HARNESS}'`];
  blocks.forEach((block, index) => {
    const prepared = prepareBlock(block.code, {
      provided: ['T', 'API'],
      replace: [
        [DOCUMENTED_ORIGIN, t.url],
        [DOCUMENTED_RECEIVER, receiverUrl],
      ],
    });
    script.push(`# ---- ${page}:${block.line}`, `TABULA_BLOCK=${index}`, prepared.code, `echo ${index} >>"$TABULA_PROGRESS"`);
  });
  await writeFile(path.join(dir, '.script.sh'), `${script.join('\n')}\n`);
  await writeFile(log, '');
  await writeFile(progress, '');
  const env = {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
    HOME: dir,
    LANG: 'C.UTF-8',
    T: t.adminToken,
    API: `${t.url}/v1`,
    TABULA_CURL_LOG: log,
    TABULA_PROGRESS: progress,
  };
  const child = spawn('bash', ['--norc', '.script.sh'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // A hung example (a curl waiting forever) must fail the test, not stall the suite.
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 45_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  const finished = (await readFile(progress, 'utf8')).split('\n').filter(Boolean).map(Number);
  const calls = (await readFile(log, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [block, status, expected, command] = line.split('\t');
      return { block: Number(block), status, expected, command };
    });
  await rm(dir, { recursive: true, force: true });
  return { code, stdout, stderr, finished, calls };
}

describe('docs examples', () => {
  it('keeps every curl example in a ```sh block, and every not-run marker on one', () => {
    for (const page of PAGES) {
      expect(strayCurlBlocks(read(page)).map((b) => `${page}:${b.line}`), 'use ```sh for shell examples').toEqual([]);
      expect(danglingNotRunMarkers(read(page)).map((line) => `${page}:${line}`), 'a not-run marker must stand right above a curl block').toEqual([]);
      for (const block of curlBlocks(read(page))) {
        // The curl function is what checks the answers; a path to the binary would go around it.
        expect(block.code, `${page}:${block.line}`).not.toMatch(/command curl|\/curl\b|env curl/);
      }
    }
  });

  const skips = NOT_RUN.map((n) => `${n.page} (${n.reason})`).join('; ') || 'none';
  it(`skips only the blocks listed in this test, each with its reason: ${skips}`, () => {
    const skipped = PAGES.flatMap((page) => curlBlocks(read(page)).filter((b) => b.notRun !== null).map((b) => ({ page, reason: b.notRun! })));
    expect(skipped).toEqual(NOT_RUN);
  });

  const runnable = PAGES.map((page) => ({ page, blocks: curlBlocks(read(page)).filter((b) => b.notRun === null) })).filter((p) => p.blocks.length > 0);

  it('finds examples on the README and the docs pages', () => {
    expect(runnable.map((p) => p.page)).toContain('README.md');
    expect(runnable.length).toBeGreaterThan(5);
  });

  it.each(runnable)('$page: every curl example answers as documented', { timeout: 60_000 }, async ({ page, blocks }) => {
    const run = await runPage(page, blocks);
    const failedBlock = blocks[run.finished.length];
    const where = failedBlock ? `${page}:${failedBlock.line}` : page;
    const lastCalls = run.calls.slice(-5).map((c) => `${c.status} (expected ${c.expected}) ${c.command}`).join('\n');
    expect(run.code, `${where} failed:\n${run.stderr}\nlast curl calls:\n${lastCalls}\nlast output (the answers' bodies):\n${run.stdout.slice(-800)}`).toBe(0);
    expect(run.finished).toEqual(blocks.map((_, index) => index));
    // Each block reached the API through the checking curl function at least once.
    for (const index of blocks.keys()) expect(run.calls.some((c) => c.block === index), `${page}:${blocks[index].line} made no curl call`).toBe(true);
    // Every call answered a 2xx unless its command declared another status.
    for (const call of run.calls) {
      if (call.expected === '2xx') expect(call.status, call.command).toMatch(/^2\d\d$/);
      else expect(call.status, call.command).toBe(call.expected);
    }
  });
});
