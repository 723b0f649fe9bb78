import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { freePort, root } from '../helpers/child.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { commandOf, killAll, processTree, stillRunning } from '../helpers/process-tree.js';
import { until } from '../helpers/until.js';

/**
 * Issue "hardening" item 1 and 3: `npm start` (embedded PostgreSQL, API, worker process) and
 * `npm run start:api` stop in order however the stop comes: Ctrl-C (SIGINT to the process group),
 * SIGTERM to the group (a process manager), SIGTERM to the node process only, SIGTERM to npm
 * only. Under a light mixed load: every request the API took gets its whole response, every
 * acknowledged write is there after a restart, no error-level log line, nothing left running.
 */
const token = generateSecret(ACCOUNT_TOKEN_PREFIX);
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

interface Started {
  npm: ChildProcess;
  url: string;
  output(): string;
  /** Every process under npm while it runs: npm, node, the worker, postgres and its backends. */
  tree: number[];
}

async function startNpm(script: 'start' | 'start:api', env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_EMAIL: 'stop@example.com',
    ADMIN_TOKEN: token,
    npm_config_update_notifier: 'false',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    ...env,
  };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  // detached: npm leads a process group of its own, as it does in a terminal.
  const npm = spawn('npm', ['run', '--silent', script], { cwd: root, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  npm.stdout!.on('data', (chunk) => (text += chunk));
  npm.stderr!.on('data', (chunk) => (text += chunk));
  const url = `http://127.0.0.1:${port}`;
  const ready = script === 'start' ? /workers started/ : /Tabula on/;
  await until(async () => {
    if (npm.exitCode !== null) throw new Error(`npm run ${script} exited:\n${text}`);
    return ready.test(text) && (await fetch(`${url}/readyz`).then((r) => r.ok, () => false));
  }, 60_000, `npm run ${script} to come up`, 200).catch((error: Error) => {
    throw new Error(`${error.message}:\n${text}`);
  });
  const tree = await processTree(npm.pid!);
  cleanup.push(async () => {
    await killAll(tree);
  });
  return { npm, url, output: () => text, tree };
}

interface Outcome {
  method: string;
  marker: number;
  status?: number;
  body?: { id?: string };
  /** No response at all: connection refused or reset before a byte of it arrived. */
  refused?: string;
  /** A response that started and then broke off. */
  torn?: string;
}

/** One request on a connection of its own; the whole body read and parsed before it counts. */
function request(url: string, method: string, path: string, body?: unknown): Promise<Omit<Outcome, 'method' | 'marker'>> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(`${url}${path}`, {
      method,
      agent: false,
      headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ refused: error.code ?? error.message }));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('error', (error) => resolve({ torn: error.message }));
      res.on('aborted', () => resolve({ torn: 'aborted' }));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode, body: JSON.parse(text) });
        } catch {
          resolve({ torn: `unparsable body: ${text.slice(0, 100)}` });
        }
      });
    });
    req.end(payload);
  });
}

/** Every row written by any run carries a marker of its own. */
let lastMarker = 0;

/**
 * Four clients creating rows and listing them until the API stops answering, one request at a
 * time each. Returns a function that stops the load and hands back every outcome; its
 * `outcomes` grow meanwhile.
 */
function lightLoad(url: string, base: string): (() => Promise<Outcome[]>) & { outcomes: Outcome[] } {
  const outcomes: Outcome[] = [];
  let running = true;
  const client = async () => {
    while (running) {
      const m = ++lastMarker;
      const write = m % 2 === 0;
      const outcome = write
        ? await request(url, 'POST', `${base}/contents`, { data: { marker: m } })
        : await request(url, 'GET', `${base}/contents?size=5`);
      outcomes.push({ method: write ? 'POST' : 'GET', marker: m, ...outcome });
      if (outcome.refused) return; // the API has stopped listening
    }
  };
  const clients = Array.from({ length: 4 }, client);
  const stop = async () => {
    running = false;
    await Promise.all(clients);
    return outcomes;
  };
  return Object.assign(stop, { outcomes });
}

/** Sends `signal`, then waits until every process of the tree is gone (and npm has exited). */
async function stopAndWait(started: Started, target: 'group' | 'node' | 'npm', signal: NodeJS.Signals): Promise<void> {
  const npmPid = started.npm.pid!;
  const exited = started.npm.exitCode !== null ? Promise.resolve() : new Promise((resolve) => started.npm.once('exit', resolve));
  if (target === 'group') process.kill(-npmPid, signal);
  else if (target === 'npm') process.kill(npmPid, signal);
  else {
    // npm runs the script with `exec`: the node process is npm's child, with no shell between.
    const commands = await Promise.all(started.tree.map(async (pid) => [pid, await commandOf(pid)] as const));
    const node = commands.find(([, command]) => /^node .*src\/(main|api)\.ts$/.test(command));
    expect(node, commands.join('\n')).toBeDefined();
    process.kill(node![0], signal);
  }
  await exited;
  let left: string[] = [];
  await until(async () => {
    left = await stillRunning(started.tree);
    return left.length === 0;
  }, 45_000, `every process to end after ${signal} to ${target}`, 200).catch((error: Error) => {
    throw new Error(`${error.message}; still running:\n${left.join('\n')}\n${started.output()}`);
  });
}

function logRecords(output: string): { level: number; name: string; msg: string }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

/** What a stop must leave behind: answers for every accepted request, a clean log. */
function expectOrderlyStop(outcomes: Outcome[], output: string, processes: string[]): void {
  expect(outcomes.filter((o) => o.torn), 'responses broken off').toEqual([]);
  expect(outcomes.filter((o) => o.status !== undefined && o.status !== (o.method === 'POST' ? 201 : 200)).map((o) => `${o.status} ${JSON.stringify(o.body)}`)).toEqual([]);
  // The load really ran.
  expect(outcomes.filter((o) => o.status === 201).length).toBeGreaterThan(4);
  const records = logRecords(output);
  expect(records.filter((r) => r.level >= 50), output).toEqual([]);
  for (const name of processes) expect(records.some((r) => r.name === name && r.msg === 'stopped'), `${name} logs "stopped":\n${output}`).toBe(true);
}

/** The markers of the rows the API acknowledged with a 201. */
function acknowledged(outcomes: Outcome[]): Map<string, number> {
  return new Map(outcomes.filter((o) => o.status === 201).map((o) => [o.body!.id!, o.marker]));
}

/** Every row that was acknowledged is stored, and a write that got no answer was not committed. */
function expectWritesKept(stored: Map<string, number>, outcomes: Outcome[]): void {
  for (const [id, marker] of acknowledged(outcomes)) expect(stored.get(id), `row ${id}`).toBe(marker);
  const storedMarkers = new Set(stored.values());
  const unanswered = outcomes.filter((o) => o.method === 'POST' && o.refused).map((o) => o.marker);
  expect(unanswered.filter((m) => storedMarkers.has(m)), 'writes committed without an answer').toEqual([]);
}

/** Every row of the table through the API, page by page. */
async function listedRows(url: string, base: string): Promise<Map<string, number>> {
  const rows = new Map<string, number>();
  for (let page = 1; ; page++) {
    const res = await request(url, 'GET', `${base}/contents?size=1000&page=${page}`);
    const { list } = res.body as unknown as { list: { id: string; data: { marker: number } }[] };
    for (const row of list) rows.set(row.id, row.data.marker);
    if (list.length < 1000) return rows;
  }
}

async function storedRows(databaseUrl: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; marker: number }>(`select id, (data->>'marker')::int as marker from contents`);
    return new Map(rows.map((r) => [r.id, r.marker]));
  } finally {
    await client.end();
  }
}

async function setUpTable(url: string): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await request(url, 'POST', path, body);
    expect(res.status, JSON.stringify(res)).toBe(201);
    return res.body as { id: string };
  };
  const ws = await post('/v1/workspaces', { name: 'Stop' });
  const project = await post(`/v1/workspaces/${ws.id}/projects`, { name: 'P' });
  await post(`/v1/${project.id}/tables`, { key: 'items', name: 'Items' });
  await post(`/v1/${project.id}/tables/items/columns`, { name: 'marker', type: 'number' });
  return `/v1/${project.id}/tables/items`;
}

describe('stopping under load', () => {
  it('npm start: Ctrl-C, SIGTERM to the group, to node and to npm each stop in order and keep every acknowledged write', { timeout: 300_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'tabula-stop-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir };
    let base: string | undefined;
    let previous: Outcome[] = [];
    const ways = [
      ['group', 'SIGINT'],
      ['group', 'SIGTERM'],
      ['node', 'SIGTERM'],
      ['npm', 'SIGTERM'],
    ] as const;
    for (const [target, signal] of ways) {
      const started = await startNpm('start', env);
      base ??= await setUpTable(started.url);
      // The rows the previous run acknowledged survived its stop and this restart.
      expectWritesKept(await listedRows(started.url, base), previous);

      const load = lightLoad(started.url, base);
      await until(() => load.outcomes.length >= 20, 30_000, 'the load to be under way');
      await stopAndWait(started, target, signal);
      previous = await load();
      expectOrderlyStop(previous, started.output(), ['tabula', 'tabula-worker']);
    }
    // The last run's rows, read after one more start.
    const last = await startNpm('start', env);
    expectWritesKept(await listedRows(last.url, base!), previous);
    await stopAndWait(last, 'group', 'SIGTERM');
  });

  it('npm run start:api: SIGTERM to npm drains the API, and nothing is left running', { timeout: 120_000 }, async () => {
    const db: TestDatabase = await createTestDatabase();
    cleanup.push(() => db.drop());
    const started = await startNpm('start:api', { DATABASE_URL: db.url });
    const base = await setUpTable(started.url);
    const load = lightLoad(started.url, base);
    await until(() => load.outcomes.length >= 20, 30_000, 'the load to be under way');
    await stopAndWait(started, 'npm', 'SIGTERM');
    const outcomes = await load();
    expectOrderlyStop(outcomes, started.output(), ['tabula-api']);
    expectWritesKept(await storedRows(db.url), outcomes);
  });
});
