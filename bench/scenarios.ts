import type { RevisionFixture } from './revisions.js';
import { AUTHORS, TOPICS, type Fixture } from './setup.js';
import type { LoadTarget } from './load.js';
import { roleScenarios } from './roles.js';
import { concurrencyScenarios } from './concurrency.js';
import { fileScenarios } from './files.js';
import { mcpScenarios } from './mcp.js';

export interface Scenario {
  name: string;
  description: string;
  ours: LoadTarget;
  bare: LoadTarget | null;
  target: string;
}

const q = (params: Record<string, unknown>) =>
  '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');

/** Q1-Q5, W1 and keyset paging, each against Tabula and (where it has one) the bare handler. */
export async function scenarios(env: { api: string; bare: string; fixture: Fixture; rows: number; revisions?: RevisionFixture }): Promise<Scenario[]> {
  const { api, bare, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const auth = { authorization: `Bearer ${fixture.writeKey}` };
  const randomId = () => fixture.ids[Math.floor(Math.random() * fixture.ids.length)];
  const q3 = q({ filter: [{ i: 'category', w: 'eq', v: 'c' }, { i: 'price', w: 'between', v: [100, 500] }], sort: [{ i: 'price', o: 'asc' }], page: 3 });
  const q4 = q({ filter: [{ i: 'title', w: 'contains', v: 'lorem 12' }] });
  let written = 0;
  const w1Body = () => JSON.stringify({ data: { title: `bench ${++written}`, category: 'b', price: 12.5, qty: 3 } });

  // Keyset: the cursor of page 10,000 (size 10) comes from one slow offset query.
  const deepPage = Math.min(10_000, Math.floor(env.rows / 10) - 1);
  const res = await fetch(`${api}${contents}?size=10&withCount=false&page=${deepPage - 1}`, { headers: auth });
  const cursor = ((await res.json()) as { pagination: { nextCursor: string } }).pagination.nextCursor;

  const ours = (path: string, extra: Partial<LoadTarget> = {}): LoadTarget => ({ url: api + path, headers: auth, ...extra });
  return [
    {
      name: 'Q1',
      description: 'read one by id',
      ours: ours(contents, { next: () => ({ path: `${contents}/${randomId()}` }) }),
      bare: { url: `${bare}/q1`, next: () => ({ path: `/q1?id=${randomId()}` }) },
      target: '>= 0.50 x bare',
    },
    { name: 'Q2', description: 'list page 1, default sort, exact total', ours: ours(contents), bare: { url: `${bare}/q2` }, target: '>= 2 x bare (naive count)' },
    { name: 'Q2-nocount', description: 'list page 1, withCount=false', ours: ours(`${contents}?withCount=false`), bare: { url: `${bare}/q2?count=false` }, target: '>= 0.50 x bare' },
    { name: 'Q3', description: 'eq select + between number, sort by number, page 3, exact total', ours: ours(contents + q3), bare: { url: `${bare}/q3` }, target: '>= 2 x bare (naive count)' },
    { name: 'Q3-nocount', description: 'Q3 with withCount=false', ours: ours(`${contents}${q3}&withCount=false`), bare: { url: `${bare}/q3?count=false` }, target: '>= 0.50 x bare' },
    { name: 'Q4', description: 'contains on a text column, exact total', ours: ours(contents + q4), bare: { url: `${bare}/q4` }, target: '>= 2 x bare (naive count)' },
    { name: 'Q4-nocount', description: 'Q4 with withCount=false', ours: ours(`${contents}${q4}&withCount=false`), bare: { url: `${bare}/q4?count=false` }, target: '>= 0.50 x bare' },
    { name: 'Q5', description: 'size=1000', ours: ours(`${contents}?size=1000&withCount=false`), bare: { url: `${bare}/q5` }, target: '>= 0.70 x bare' },
    {
      name: 'W1',
      description: 'create with validation',
      ours: ours(contents, { method: 'POST', next: () => ({ path: contents, body: w1Body() }) }),
      bare: { url: `${bare}/w1`, method: 'POST', next: () => ({ path: '/w1', body: w1Body() }) },
      target: '>= 2000 req/s',
    },
    {
      name: 'R1-expand',
      description: 'list page 1 (size 20) with expand=author; "bare" here is the same list without expand',
      ours: ours(`${contents}?size=20&expand=author`),
      bare: ours(`${contents}?size=20`),
      target: '>= 0.60 x without expand',
    },
    {
      name: 'R2',
      description: 'filter author.name eq (one of 1,000 authors), exact total',
      ours: ours(contents, { next: () => ({ path: contents + q({ filter: [{ i: 'author.name', w: 'eq', v: `Author ${Math.floor(Math.random() * AUTHORS)}` }] }) }) }),
      bare: null,
      target: 'p99 < 50 ms',
    },
    {
      name: 'R3',
      description: 'search for a word in 1 % of the rows (one of 100), exact total',
      ours: ours(contents, { next: () => ({ path: contents + q({ search: `topic${String(Math.floor(Math.random() * TOPICS)).padStart(2, '0')}` }) }) }),
      bare: null,
      target: 'p99 < 50 ms',
    },
    ...revisionScenarios(contents, ours, env.revisions),
    ...(await roleScenarios({ api, fixture })),
    ...concurrencyScenarios({ api, fixture }),
    ...fileScenarios({ api, fixture }),
    ...(await mcpScenarios({ api, fixture })),
    { name: 'page-1', description: 'keyset: page 1 (size 10)', ours: ours(`${contents}?size=10&withCount=false`), bare: null, target: 'baseline for page 10,000' },
    {
      name: `page-${deepPage}`,
      description: `keyset: page ${deepPage} through the cursor (size 10)`,
      ours: ours(`${contents}?size=10&withCount=false&cursor=${encodeURIComponent(cursor)}`),
      bare: null,
      target: 'within 2 x page 1',
    },
  ];
}

/** docs/performance.md#revisions: updates of rows with and without revisions, and the revisions of a long-lived row. */
function revisionScenarios(contents: string, ours: (path: string, extra?: Partial<LoadTarget>) => LoadTarget, fixture?: RevisionFixture): Scenario[] {
  if (!fixture) return [];
  let n = 0;
  const update = (ids: string[]) => () => ({ path: `${contents}/${ids[n++ % ids.length]}`, body: JSON.stringify({ data: { qty: n % 100 } }) });
  return [
    {
      name: 'V1',
      description: 'update a row that has 100 revisions; "bare" here is an update of a row that had none',
      ours: ours(contents, { method: 'PUT', next: update(fixture.hundred) }),
      bare: ours(contents, { method: 'PUT', next: update(fixture.bare) }),
      target: 'within 10 % of a row without (ratio >= 0.90)',
    },
    {
      name: 'V2',
      description: 'revisions of a row that has 10,000, page 1 (size 20)',
      ours: ours(`${contents}/${fixture.tenThousand}/revisions?size=20`),
      bare: null,
      target: 'p99 < 20 ms',
    },
  ];
}
