import pg from 'pg';
import type { Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import type { Scenario } from './scenarios.js';

/*
 * The file library as the console reads it (docs/console.md#file-library), over 10,000 file
 * records of the bench project:
 * - F1: the library's first page (48 files, newest first, exact total);
 * - F2: a search by name (`search`, names containing the text, any case) with its total.
 * The records are inserted directly (their bytes are never read by these calls).
 */
export const LIBRARY_FILES = 10_000;

export async function seedFiles(dbUrl: string, projectId: string): Promise<void> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await db.query(
      `insert into file (id, project_id, storage_project_id, name, mime_type, size, sha256, storage_driver, storage_key, created_at, updated_at)
       select gen_random_uuid(), $1, $1, 'report-' || lpad(n::text, 5, '0') || '.pdf', 'application/pdf', 1000 + n, repeat('0', 64), 'local', 'bench-' || n,
              now() - n * interval '1 second', now()
         from generate_series(1, $2) as n`,
      [projectId, LIBRARY_FILES],
    );
    // Statistics as a live database keeps them (autovacuum's analyze), so that the plan is the steady one.
    await db.query('analyze file');
  } finally {
    await db.end();
  }
}

export function fileScenarios(env: { api: string; fixture: Fixture }): Scenario[] {
  const { api, fixture } = env;
  const files = `/v1/${fixture.projectId}/files`;
  const ours = (path: string, extra: Partial<LoadTarget> = {}): LoadTarget => ({ url: api + path, headers: { authorization: `Bearer ${fixture.writeKey}` }, ...extra });
  return [
    {
      name: 'F1-files-page',
      description: `the file library's first page over ${LIBRARY_FILES.toLocaleString('en')} files (size 48, newest first, exact total)`,
      ours: ours(`${files}?size=48&sort=-createdAt`),
      bare: null,
      target: 'p99 < 50 ms',
    },
    {
      name: 'F2-files-search',
      description: 'a search by name among them (one of 100 prefixes, about 100 matches), exact total',
      ours: ours(files, { next: () => ({ path: `${files}?size=48&sort=-createdAt&search=report-${String(Math.floor(Math.random() * 100)).padStart(3, '0')}` }) }),
      bare: null,
      target: 'p99 < 50 ms',
    },
  ];
}
