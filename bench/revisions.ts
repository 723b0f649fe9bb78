import pg from 'pg';
import type { Fixture } from './setup.js';

/** Rows for the revision scenarios (docs/performance.md#revisions): some with none, some with 100, one with 10,000. */
export interface RevisionFixture {
  bare: string[];
  hundred: string[];
  tenThousand: string;
}

/**
 * Gives 50 of the seeded rows 100 revisions each and one row 10,000, through SQL (as the seed
 * itself is); 50 others keep none. Versions and revisions agree, as the API leaves them.
 */
export async function seedRevisions(databaseUrl: string, fixture: Fixture): Promise<RevisionFixture> {
  const [bare, hundred, [tenThousand]] = [fixture.ids.slice(0, 50), fixture.ids.slice(50, 100), fixture.ids.slice(100, 101)];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const give = (ids: string[], count: number) =>
      client.query(
        `with rows as (select id, status, data from contents where id = any($1::uuid[]))
         , revised as (
           insert into contents_revision (row_id, version, action, status, data, created_at)
           select id, v, case when v = 1 then 'created' else 'updated' end, status, data, now() from rows, generate_series(1, $2::int) as v
         )
         update contents set version = $2 where id = any($1::uuid[])`,
        [ids, count],
      );
    await give(hundred, 100);
    await give([tenThousand], 10_000);
    await client.query('vacuum (analyze) contents_revision');
  } finally {
    await client.end();
  }
  return { bare, hundred, tenThousand };
}
