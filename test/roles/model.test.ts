import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildProcess, type SecondApi } from '../auth/second-process.js';
import { buildWorld, contentsPath, type World as ProjectWorld } from '../contents/fixture.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { actual, difference, expected, randomRequest, type Request } from './model/drive.js';
import { FUTURE, readRules, writeOp, writeRules } from './model/generate.js';
import { viewOf, type Holder } from './model/policy.js';
import { Random } from './model/random.js';
import { WORDS, type World } from './model/schema.js';
import { createHolder, createRows, createTables, loadWorld, readTruth, type Call, type RoleKey } from './model/setup.js';
import { merged, writeAnswer } from './model/writes.js';

/*
 * Roles enforced alike on every read surface (docs/roles.md#one-enforcement-path), checked
 * against a reference model: random roles, rows and requests (lists, cursor pages, filters,
 * dotted filters, `fields`, read one, `expand`, `search`, `referrers`, `version=draft`, exports),
 * each answered by the API through an API key holding the role and by the model (model/)
 * filtering the same rows in JavaScript; then writes through a role with `where` and
 * `fields.write` (docs/roles.md#writes). Each seed runs once through one API process and once
 * alternating between it and a second OS process on the same database, with a role changed
 * mid-run that the process making the change applies at once and the other within 2 s.
 * SEED=<n> replays one seed; SEEDS=<n> runs n random seeds (default 14).
 */

let t: TestApi;
let second: SecondApi;
const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 14) }, () => randomInt(2 ** 31));
/** Requests per role before the writes, and after them. */
const REQUESTS = 40;
const REQUESTS_AFTER_WRITES = 8;
const WRITES = 12;
/** How soon another process must answer per a changed role: 2 s documented, and some slack for a loaded machine. */
const PROPAGATION_MS = 2_500;
/** A run stops collecting disagreements after this many. */
const MAX_FAILURES = 8;
const UNLIMITED = { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' };

beforeAll(async () => {
  t = await startTestApi(UNLIMITED);
  second = await startChildProcess(t, UNLIMITED);
}, 90_000);
afterAll(async () => {
  await second?.close();
  await t?.close();
});

const clip = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

/** One seed through `processes` (requests alternate between them): the disagreements with the model. */
async function runSeed(seed: number, processes: Call[], mode: string): Promise<string[]> {
  const rng = new Random(seed);
  const failures: string[] = [];
  const fail = (what: string, holder: Holder, detail: Record<string, unknown>) =>
    failures.push([`SEED=${seed} (${mode}) ${what}`, `rules: ${clip(holder.rules)}`, `me: ${holder.me}`, ...Object.entries(detail).map(([k, v]) => `${k}: ${clip(v)}`)].join('\n  '));
  let turn = 0;
  const next = () => processes[turn++ % processes.length];

  // A project per seed: its tables, the roles and their keys (created first: posts are owned by keys), the rows.
  const w: ProjectWorld = await buildWorld(t);
  const tables = await createTables(w);
  const bare: World = { tables, rows: { posts: [], authors: [], notes: [] } };
  const holders: RoleKey[] = [];
  for (let i = rng.int(3, 4); i > 0; i--) holders.push(await createHolder(w, readRules(rng, bare)));
  const writer = await createHolder(w, writeRules(rng, bare));
  const owners = [...holders.map((h) => h.me), writer.me, ...WORDS.owner];
  const drafts = await createRows(w, rng, tables, owners);
  let world = await loadWorld(w, tables);
  // The model owns the drafts' values: `?version=draft` is the live row with the draft's changes merged.
  for (const row of [...world.rows.posts, ...world.rows.authors]) {
    const changes = drafts.get(row.wire.id);
    if (changes && !isDeepStrictEqual(row.draft?.data, merged(row.wire.data, changes))) fail('a draft read as an account', { rules: [], me: '' }, { row, changes });
  }

  const check = async (holder: RoleKey, req: Request, call: Call, what = 'request') => {
    const model = expected(holder, world, req);
    const api = await actual(call, w, world, holder.secret, req);
    const differs = difference(model, api);
    if (differs) fail(what, holder, { request: req, differs, model, api });
  };

  /** New rules PUT through one process: it answers per them at once, every other one within PROPAGATION_MS. */
  const changeRole = async (holder: RoleKey) => {
    const [changer, ...others] = [next(), ...processes].filter((p, i, all) => all.indexOf(p) === i);
    holder.rules = readRules(rng, world);
    const res = await changer('PUT', `/v1/${w.projectId}/roles/${holder.roleId}`, { body: { rules: holder.rules } });
    expect(res.status, res.text).toBe(200);
    const changedAt = Date.now();
    const probes: Request[] = (['posts', 'authors', 'notes'] as const).map((table) => ({ kind: 'list', table, query: { sort: [{ i: 'id', o: 'asc' }] } }));
    for (const probe of probes) await check(holder, probe, changer, 'right after a role change, on the process that made it');
    // What the role may do per table, as the process that made the change says: the lists above
    // may read the same under the old rules and the new (no row in either), the explanation not.
    const explain = (call: Call) =>
      Promise.all((['posts', 'authors', 'notes'] as const).map(async (table) => (await call('GET', `/v1/${w.projectId}/access/explain?table=${tables[table].key}`, { token: holder.secret })).text));
    const explained = await explain(changer);
    for (const other of others) {
      for (;;) {
        const answers = await Promise.all(probes.map(async (probe) => ({ probe, model: expected(holder, world, probe), api: await actual(other, w, world, holder.secret, probe) })));
        const wrong = answers.find(({ model, api }) => difference(model, api));
        const applied = isDeepStrictEqual(await explain(other), explained);
        if (!wrong && applied) break;
        if (Date.now() - changedAt > PROPAGATION_MS) {
          const detail = wrong ? { request: wrong.probe, differs: difference(wrong.model, wrong.api), api: wrong.api } : { explained, api: await explain(other) };
          fail(`a role change not applied by another process within ${PROPAGATION_MS} ms`, holder, detail);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  const reads = async (holder: RoleKey, count: number, changeAt = -1) => {
    for (let i = 0; i < count && failures.length < MAX_FAILURES; i++) {
      if (i === changeAt) await changeRole(holder);
      await check(holder, randomRequest(rng, world, holder), next());
    }
  };

  /** A create or update through the writer: the model's status, the row as the model says after it, or unchanged. */
  const write = async () => {
    const posts = viewOf(writer, world, 'posts');
    const op = writeOp(rng, world, owners, writer.me, world.rows.posts.filter((r) => posts.visible(r)));
    const model = writeAnswer(writer, world, op);
    const body = { data: op.data, ...(op.status ? { status: op.status } : {}), ...(op.kind === 'update' && op.publishAt ? { publishAt: FUTURE } : {}) };
    const res = op.kind === 'create'
      ? await next()('POST', contentsPath(w, tables.posts.id), { token: writer.secret, body })
      : await next()('PUT', contentsPath(w, tables.posts.id, op.id), { token: writer.secret, body });
    const id: string | undefined = op.kind === 'create' ? res.json?.id : op.id;
    const before = op.kind === 'update' ? world.rows.posts.find((r) => r.wire.id === op.id) : undefined;
    const after = id ? await readTruth(w, 'posts', tables, id) : null;
    if (res.status !== model.status) fail('write', writer, { op, model: model.status, api: `${res.status} ${res.text}` });
    else if (model.after && (after?.wire.status !== model.after.status || !isDeepStrictEqual(after.wire.data, model.after.data))) {
      fail('a written row', writer, { op, model: model.after, api: after?.wire });
    } else if (!model.after && op.kind === 'update' && !isDeepStrictEqual(after, before)) {
      fail(`a row changed by a refused write (${res.status})`, writer, { op, before, after });
    }
    if (op.kind === 'create' && res.status !== 201) {
      const total = await t.call('GET', `${contentsPath(w, tables.posts.id)}?size=1`);
      if (total.json.pagination.total !== world.rows.posts.length) fail(`a row written by a refused create (${res.status})`, writer, { op });
    }
    if (after) world.rows.posts = [...world.rows.posts.filter((r) => r.wire.id !== id), after];
  };

  for (const [h, holder] of holders.entries()) await reads(holder, REQUESTS, h === 0 ? REQUESTS / 2 : -1);
  for (let i = 0; i < WRITES && failures.length < MAX_FAILURES; i++) await write();
  // The rows as the writes left them, read by every role and by the writer.
  world = await loadWorld(w, tables);
  for (const holder of [...holders, writer]) await reads(holder, REQUESTS_AFTER_WRITES);
  return failures;
}

describe('roles: the API answers as the reference model', () => {
  it.each(SEEDS)('over one process: seed %i', async (seed) => {
    const failures = await runSeed(seed, [t.call], 'one process');
    expect(failures.length, failures.join('\n\n')).toBe(0);
  }, 300_000);

  it.each(SEEDS)('over two processes, alternating: seed %i', async (seed) => {
    const failures = await runSeed(seed, [t.call, second.call], 'two processes');
    expect(failures.length, failures.join('\n\n')).toBe(0);
  }, 300_000);
});
