import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTabulaClient } from 'tabula/client';
import { loadConfig } from '../../src/config/config.js';
import { parseLsn } from '../../src/db/wal-position.js';
import { ACCOUNT_TOKEN_PREFIX, generateSecret } from '../../src/shared/secrets.js';
import { createLogger } from '../../src/shared/logger.js';
import { startApi, type RunningApi } from '../../src/server.js';
import { clientFor, toCallResult, type CallResult, type TestApi } from '../helpers/api.js';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../helpers/replicated-postgres.js';
import { until } from '../helpers/until.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, putRow, type Table, type World } from '../contents/fixture.js';

/*
 * Reads on a real streaming replica (docs/scaling-out.md#read-replicas): a primary and a replica of
 * it on this machine, the API on the primary with DATABASE_REPLICA_URLS naming the replica.
 * Lag is made real by pausing the replica's replay.
 */

const MAX_LAG_MS = 300;

let cluster: ReplicatedPostgres;
let api: RunningApi;
let w: World;
let table: Table;

const servedBy = (res: CallResult) => res.headers.get('tabula-served-by');
const tokenOf = (res: CallResult) => {
  const token = res.headers.get('tabula-consistency');
  expect(parseLsn(token), `a WAL position, not ${token}`).not.toBeNull();
  return token!;
};
const read = (id: string, token?: string) =>
  w.t.call('GET', contentsPath(w, table.id, id), { token: w.readKey, headers: token ? { 'tabula-consistency': token } : {} });
const list = (token?: string) =>
  w.t.call('GET', `${contentsPath(w, table.id)}?size=100`, { token: w.readKey, headers: token ? { 'tabula-consistency': token } : {} });
/** Waits until the health checker sends reads without a token to the replica again. */
const replicaInUse = () => until(async () => servedBy(await list()) === 'replica-1', 20_000, 'reads to go to the replica');

const adminToken = generateSecret(ACCOUNT_TOKEN_PREFIX);
const baseEnv = () => ({
  PORT: '0',
  HOST: '127.0.0.1',
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_TOKEN: adminToken,
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  RATE_LIMIT_PER_SECOND: '10000',
  RATE_LIMIT_BURST: '20000',
});

beforeAll(async () => {
  cluster = await startReplicatedPostgres();
  const config = loadConfig({
    ...baseEnv(),
    DATABASE_REPLICA_URLS: cluster.replicaUrl,
    REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
    REPLICA_CHECK_MS: '50',
  });
  api = await startApi(config, cluster.primaryUrl, createLogger(config.LOG_LEVEL));
  const t: TestApi = {
    url: api.url,
    api,
    db: { url: cluster.primaryUrl, name: 'tabula', drop: async () => {} },
    adminToken,
    adminEmail: 'admin@example.com',
    call: clientFor(api.url, adminToken),
    close: () => api.close(1000),
  };
  w = await buildWorld(t);
  table = await createTable(w, [{ name: 'title', type: 'text' }]);
}, 120_000);

afterAll(async () => {
  await api?.close(1000);
  await cluster?.close();
});

describe('read replicas', () => {
  it('answers every write with a consistency token, on /v1 and /trpc', async () => {
    const created = await w.t.call('POST', contentsPath(w, table.id), { token: w.writeKey, body: { data: { title: 'token' } } });
    expect(created.status, created.text).toBe(201);
    const first = parseLsn(tokenOf(created))!;
    // A write through the entity manager (a table's settings) answers one too.
    const renamed = await w.t.call('POST', `/v1/${w.projectId}/tables`, { body: { key: 'other_table', name: 'Other' } });
    expect(renamed.status, renamed.text).toBe(201);
    expect(parseLsn(tokenOf(renamed))! >= first).toBe(true);
    const answered = await toCallResult(
      await fetch(`${api.url}/trpc/contents.update`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.writeKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: w.projectId, tableId: table.id, contentsId: created.json.id, data: { title: 'via trpc' } }),
      }),
    );
    expect(answered.status, answered.text).toBe(200);
    expect(parseLsn(tokenOf(answered))! >= first).toBe(true);
    // A write of the plain routes (an import streams its body) answers one too.
    const imported = await w.t.call('POST', `${contentsPath(w, table.id)}/import`, {
      token: w.writeKey,
      raw: '{"data":{"title":"imported"}}\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.status, imported.text).toBe(200);
    expect(parseLsn(tokenOf(imported))! >= first).toBe(true);
    // Reads answer none.
    expect((await read(created.json.id)).headers.get('tabula-consistency')).toBeNull();
  });

  it('serves a read with a token from the primary while the replica has not replayed it, from the replica after', async () => {
    const row = await createRow(w, table.id, { title: 'before' });
    await replicaInUse();
    await cluster.pauseReplay();
    try {
      const updated = await putRow(w, table.id, row.id, { data: { title: 'after' } });
      expectStatus(updated, 200);
      const token = tokenOf(updated);
      for (let i = 0; i < 5; i++) {
        const got = await read(row.id, token);
        expect(got.status, got.text).toBe(200);
        expect(got.json.data.title).toBe('after');
        expect(servedBy(got)).toBe('primary');
        const listed = await list(token);
        expect(listed.json.list.find((r: { id: string }) => r.id === row.id).data.title).toBe('after');
        expect(servedBy(listed)).toBe('primary');
      }
      // The replica really is behind the write.
      const [replica] = await cluster.onReplica<{ lsn: string }>('select pg_last_wal_replay_lsn()::text as lsn');
      expect(parseLsn(replica.lsn)! < parseLsn(token)!).toBe(true);
      await cluster.resumeReplay();
      const fromReplica = await until(async () => {
        const got = await read(row.id, token);
        return servedBy(got) === 'replica-1' && got;
      }, 20_000, 'the read with the token to go to the replica');
      expect(fromReplica.json.data.title).toBe('after');
      // The replica's own list cache has caught up with the write too (it reads the replica's change log).
      const listed = await list(token);
      expect(servedBy(listed)).toBe('replica-1');
      expect(listed.json.list.find((r: { id: string }) => r.id === row.id).data.title).toBe('after');
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('sends reads without a token to the primary while the replica lags more than REPLICA_MAX_LAG_MS', async () => {
    const row = await createRow(w, table.id, { title: 'lag' });
    await replicaInUse();
    await cluster.pauseReplay();
    try {
      expectStatus(await putRow(w, table.id, row.id, { data: { title: 'lag 2' } }), 200);
      // Once the lag passes the bound, every read without a token is the primary's.
      const got = await until(async () => {
        const res = await read(row.id);
        return servedBy(res) === 'primary' && res;
      }, 20_000, 'reads to leave the lagging replica');
      expect(got.json.data.title).toBe('lag 2');
      for (let i = 0; i < 5; i++) {
        const listed = await list();
        expect(servedBy(listed)).toBe('primary');
        expect(listed.json.list.find((r: { id: string }) => r.id === row.id).data.title).toBe('lag 2');
      }
    } finally {
      await cluster.resumeReplay();
    }
    await replicaInUse();
    expect((await read(row.id)).json.data.title).toBe('lag 2');
  });

  it('keeps reads working from the primary when the replica goes away, and uses it again when it is back', async () => {
    const row = await createRow(w, table.id, { title: 'down' });
    await replicaInUse();
    // A second API process whose health checks are too rare to notice: its reads go to the
    // stopped replica, fail there, and are answered by the primary.
    const slow = await startApi(
      loadConfig({ ...baseEnv(), DATABASE_REPLICA_URLS: cluster.replicaUrl, REPLICA_CHECK_MS: '10000', REPLICA_MAX_LAG_MS: '10000' }),
      cluster.primaryUrl,
      createLogger('silent'),
    );
    try {
      const slowRead = () => fetch(`${slow.url}${contentsPath(w, table.id, row.id)}`, { headers: { authorization: `Bearer ${w.readKey}` } }).then(toCallResult);
      expect(servedBy(await slowRead())).toBe('replica-1');
      await cluster.stopReplica();
      const first = await slowRead();
      expect(first.status, first.text).toBe(200);
      expect(first.json.data.title).toBe('down');
      expect(servedBy(first)).toBe('replica-1');
      // The failure took the replica out of use at once.
      const next = await slowRead();
      expect(next.status).toBe(200);
      expect(servedBy(next)).toBe('primary');
      const metrics = await (await fetch(`${slow.url}/metrics`)).text();
      expect(metrics).toMatch(/^tabula_replica_fallbacks_total\{replica="replica-1"\} [1-9]/m);
      expect(metrics).toMatch(/^tabula_replica_up\{replica="replica-1"\} 0$/m);
      expect(metrics).toMatch(/^tabula_db_reads_total\{node="primary"\} [1-9]/m);
    } finally {
      await slow.close(1000);
    }
    // The first reads may still be routed to the stopped replica: each is retried on the primary.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? read(row.id) : list())));
    for (const res of answers) expect(res.status, res.text).toBe(200);
    await until(async () => servedBy(await read(row.id)) === 'primary', 10_000, 'reads to leave the stopped replica');
    const written = await putRow(w, table.id, row.id, { data: { title: 'down 2' } });
    expectStatus(written, 200);
    const withToken = await read(row.id, tokenOf(written));
    expect(withToken.json.data.title).toBe('down 2');
    expect(servedBy(withToken)).toBe('primary');

    await cluster.startReplica();
    await replicaInUse();
    const back = await until(async () => {
      const res = await read(row.id, tokenOf(written));
      return servedBy(res) === 'replica-1' && res;
    }, 20_000, 'the read with the token to go to the replica that came back');
    expect(back.json.data.title).toBe('down 2');
  });

  it('exports from a replica that has the rows, from the primary with a token it has not replayed', async () => {
    const written = await w.t.call('POST', contentsPath(w, table.id), { token: w.writeKey, body: { data: { title: 'exported' } } });
    expect(written.status, written.text).toBe(201);
    const token = tokenOf(written);
    const exportWith = (headers: Record<string, string>) => w.t.call('GET', `${contentsPath(w, table.id)}/export`, { token: w.readKey, headers });
    await until(async () => servedBy(await exportWith({ 'tabula-consistency': token })) === 'replica-1', 20_000, 'the export to go to the replica');
    const fromReplica = await exportWith({ 'tabula-consistency': token });
    expect(fromReplica.status).toBe(200);
    expect(fromReplica.text).toContain('"exported"');
    await cluster.pauseReplay();
    try {
      const later = await w.t.call('POST', contentsPath(w, table.id), { token: w.writeKey, body: { data: { title: 'exported later' } } });
      const fromPrimary = await exportWith({ 'tabula-consistency': tokenOf(later) });
      expect(servedBy(fromPrimary)).toBe('primary');
      expect(fromPrimary.text).toContain('"exported later"');
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('the typed client reads its own writes by itself, where a read without the token sees the replica', async () => {
    // A lag bound too wide to leave the paused replica: only the token keeps reads off it.
    const lenient = await startApi(
      loadConfig({ ...baseEnv(), DATABASE_REPLICA_URLS: cluster.replicaUrl, REPLICA_CHECK_MS: '50', REPLICA_MAX_LAG_MS: '600000' }),
      cluster.primaryUrl,
      createLogger('silent'),
    );
    try {
      const row = await createRow(w, table.id, { title: 'client 1' });
      const id = { projectId: w.projectId, tableId: table.id, contentsId: row.id };
      const plainRead = () => fetch(`${lenient.url}${contentsPath(w, table.id, row.id)}`, { headers: { authorization: `Bearer ${w.writeKey}` } }).then(toCallResult);
      await until(async () => {
        const res = await plainRead();
        return servedBy(res) === 'replica-1' && res.json.data.title === 'client 1';
      }, 20_000, 'the replica to have the row');
      await cluster.pauseReplay();
      try {
        const client = createTabulaClient({ baseUrl: lenient.url, token: w.writeKey });
        await client.contents.update.mutate({ ...id, data: { title: 'client 2' } });
        expect(((await client.contents.get.query(id)).data as { title: string }).title).toBe('client 2');
        const stale = await plainRead();
        expect(servedBy(stale)).toBe('replica-1');
        expect(stale.json.data.title).toBe('client 1');
        const forgetful = createTabulaClient({ baseUrl: lenient.url, token: w.writeKey, readYourWrites: false });
        await forgetful.contents.update.mutate({ ...id, data: { title: 'client 3' } });
        expect(((await forgetful.contents.get.query(id)).data as { title: string }).title).toBe('client 1');
      } finally {
        await cluster.resumeReplay();
      }
    } finally {
      await lenient.close(1000);
    }
  });

  it('conditional reads on a lagging replica: 304 only for what that node holds, a token reads its write', async () => {
    const row = await createRow(w, table.id, { title: 'tagged' }, { status: 'PUBLISHED' });
    await replicaInUse();
    const get = (path: string, tag?: string, token?: string) =>
      w.t.call('GET', path, { token: w.readKey, headers: { ...(tag ? { 'if-none-match': tag } : {}), ...(token ? { 'tabula-consistency': token } : {}) } });
    const itemPath = contentsPath(w, table.id, row.id);
    const listPath = `${contentsPath(w, table.id)}?size=100`;
    const titleIn = (res: CallResult, path: string) =>
      path === itemPath ? res.json.data.title : res.json.list.find((r: { id: string }) => r.id === row.id).data.title;
    /** Every 200 per URL and tag: a strong tag names one body, on any node. */
    const bodies = new Map<string, string>();
    const note = (path: string, res: CallResult) => {
      if (res.status !== 200) return;
      const key = `${path} ${res.headers.get('etag')}`;
      if (bodies.has(key)) expect(res.text, `${key} answered two bodies`).toBe(bodies.get(key));
      else bodies.set(key, res.text);
    };
    const old = new Map<string, string>();
    for (const path of [itemPath, listPath]) {
      const res = await until(async () => {
        const got = await get(path);
        return servedBy(got) === 'replica-1' && got;
      }, 20_000, 'a read from the replica');
      note(path, res);
      expect(titleIn(res, path)).toBe('tagged');
      old.set(path, res.headers.get('etag')!);
    }
    await cluster.pauseReplay();
    try {
      const updated = await putRow(w, table.id, row.id, { data: { title: 'retagged' } });
      expectStatus(updated, 200);
      const token = tokenOf(updated);
      for (let i = 0; i < 10; i++) {
        for (const path of [itemPath, listPath]) {
          // Without the token: the lagging replica may answer (304: it still holds the old row), or the primary (200, new row).
          const plain = await get(path, old.get(path));
          note(path, plain);
          if (plain.status === 304) {
            expect(servedBy(plain)).toBe('replica-1');
            expect(plain.headers.get('etag')).toBe(old.get(path));
          } else {
            expect(plain.status, plain.text).toBe(200);
            expect(titleIn(plain, path)).toBe(servedBy(plain) === 'primary' ? 'retagged' : 'tagged');
            if (path === itemPath) expect(plain.headers.get('etag')).toBe(`"${row.id}:${plain.json.version}"`);
          }
          // With it: the write, under a new tag.
          const mine = await get(path, old.get(path), token);
          note(path, mine);
          expect(mine.status, mine.text).toBe(200);
          expect(servedBy(mine)).toBe('primary');
          expect(titleIn(mine, path)).toBe('retagged');
          expect(mine.headers.get('etag')).not.toBe(old.get(path));
        }
      }
    } finally {
      await cluster.resumeReplay();
    }
    await replicaInUse();
    for (const path of [itemPath, listPath]) {
      const fresh = await until(async () => {
        const got = await get(path, old.get(path));
        return servedBy(got) === 'replica-1' && got;
      }, 20_000, 'a read from the caught-up replica');
      note(path, fresh);
      expect(fresh.status, fresh.text).toBe(200);
      expect(titleIn(fresh, path)).toBe('retagged');
    }
  }, 120_000);

  it('keeps writes on the primary', async () => {
    const created = await w.t.call('POST', contentsPath(w, table.id), { token: w.writeKey, body: { data: { title: 'write' } } });
    expect(created.status, created.text).toBe(201);
    expect(servedBy(created)).toBeNull();
    // Read through /trpc, with the write's token: answered from where it has been replayed.
    const input = encodeURIComponent(JSON.stringify({ projectId: w.projectId, tableId: table.id, contentsId: created.json.id }));
    const got = await toCallResult(
      await fetch(`${api.url}/trpc/contents.get?input=${input}`, {
        headers: { authorization: `Bearer ${w.readKey}`, 'tabula-consistency': tokenOf(created) },
      }),
    );
    expect(got.status, got.text).toBe(200);
    expect(got.json.result.data.data.title).toBe('write');
    expect(['primary', 'replica-1']).toContain(servedBy(got));
    // A token that is not a WAL position (or two of them) is one no replica is known to have.
    for (const token of ['garbage', '0/1, 0/2', 'FFFFFFFFF/0']) {
      const odd = await read(created.json.id, token);
      expect(odd.status, odd.text).toBe(200);
      expect(servedBy(odd)).toBe('primary');
    }
  });
});
