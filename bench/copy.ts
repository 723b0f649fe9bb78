/**
 * `npm run bench -- --only E1-copy`: a copy of the bench project (docs/concepts.md#copying-a-project),
 * with its rows (`--rows` articles and the 1,000 authors they reference, every reference
 * remapped) and without, each timed from request to answer (target: a 100,000-row project in
 * under 30 s). The copies stay in the database; this scenario runs after the others that read it.
 */
import pg from 'pg';
import { adminToken, type Fixture } from './setup.js';

export interface CopyResult {
  rows: number;
  contentsSeconds: number;
  schemaSeconds: number;
}

async function call(api: string, method: string, url: string, body?: unknown) {
  const res = await fetch(api + url, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

export async function benchCopy(env: { api: string; databaseUrl: string; fixture: Fixture; log: (line: string) => void }): Promise<CopyResult> {
  const { api, fixture, log } = env;
  const workspaces = (await call(api, 'GET', '/v1/workspaces?size=100')).list as { id: string; name: string }[];
  const workspaceId = workspaces.find((w) => w.name === 'Bench')!.id;
  // Stored rows counted in SQL: the bare handler's W1 inserts rows that Tabula's counts never saw.
  const db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  const stored = async (projectId: string) => Number((await db.query<{ n: string }>('select count(*) as n from contents where project_id = $1', [projectId])).rows[0].n);
  const rows = await stored(fixture.projectId);
  const timed = async (contents: boolean) => {
    const started = performance.now();
    const made = await call(api, 'POST', `/v1/workspaces/${workspaceId}/projects`, { name: `Bench copy ${contents ? 'with rows' : 'schema'}`, from: { projectId: fixture.projectId, contents } });
    const seconds = (performance.now() - started) / 1000;
    return { id: made.id as string, seconds };
  };
  log('E1-copy: the bench project copied without its rows, then with them');
  const schema = await timed(false);
  const withRows = await timed(true);
  const copied = await stored(withRows.id);
  await db.end();
  if (copied !== rows) throw new Error(`E1-copy: the copy holds ${copied} rows, the source ${rows}`);
  return { rows, contentsSeconds: withRows.seconds, schemaSeconds: schema.seconds };
}
