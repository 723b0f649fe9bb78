/**
 * Q1, Q2, Q3 and Q5 of bench/scenarios.ts as requests to Tabula and the same question to
 * Directus's REST API. Each shape is asked once of every server before the load, to check that
 * the answers agree (rows answered, totals) and to weigh them (bytes per row).
 */
import type { Fixture } from '../setup.js';
import type { LoadTarget } from '../load.js';

export interface Shape {
  name: string;
  description: string;
  /** tabula, directus (data cache off), directus-cached (memory cache on). */
  targets: Record<string, LoadTarget>;
  /** Answer bytes per row answered, by target. */
  bytesPerRow: Record<string, number>;
  /** What the one-off requests found, e.g. totals on both sides. */
  check: string;
}

const q = (params: Record<string, unknown>) =>
  '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v))}`).join('&');

interface Answer {
  bytes: number;
  rows: number;
  total: number | null;
}

async function ask(url: string, token: string): Promise<Answer> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 500)}`);
  const json = JSON.parse(text) as Record<string, unknown>;
  // Tabula: a row, or { list, pagination: { total } }; Directus: { data, meta?: { filter_count } }.
  const list = (json.list ?? json.data) as unknown;
  const rows = Array.isArray(list) ? list.length : 1;
  const total =
    ((json.pagination as { total?: number } | undefined)?.total ?? null) ??
    ((json.meta as { filter_count?: number | string } | undefined)?.filter_count !== undefined ? Number((json.meta as { filter_count: number | string }).filter_count) : null);
  return { bytes: Buffer.byteLength(text), rows, total };
}

export async function directusScenarios(env: {
  tabula: string;
  fixture: Fixture;
  directus: { plain: string; cached: string };
  token: string;
}): Promise<Shape[]> {
  const { tabula, fixture, directus, token } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const tabulaAuth = { authorization: `Bearer ${fixture.writeKey}` };
  const directusAuth = { authorization: `Bearer ${token}` };
  const randomId = () => fixture.ids[Math.floor(Math.random() * fixture.ids.length)];
  const q3 = q({ filter: [{ i: 'category', w: 'eq', v: 'c' }, { i: 'price', w: 'between', v: [100, 500] }], sort: [{ i: 'price', o: 'asc' }], page: 3 });
  const directusQ3 = q({ filter: { category: { _eq: 'c' }, price: { _between: [100, 500] } }, sort: 'price', page: 3, limit: 20, meta: 'filter_count' });

  // Path per request (random id) or a fixed path, on each server.
  const definitions: { name: string; description: string; tabula: string | (() => string); directus: string | (() => string) }[] = [
    { name: 'Q1', description: 'read one by id (random of 1,000 ids)', tabula: () => `${contents}/${randomId()}`, directus: () => `/items/products/${randomId()}` },
    {
      name: 'Q2',
      description: 'list page 1 (20 rows), newest first, exact total',
      tabula: contents,
      directus: `/items/products${q({ sort: '-date_created', limit: 20, meta: 'filter_count' })}`,
    },
    { name: 'Q3', description: 'category eq c and price between 100 and 500, sort by price, page 3 (20 rows), exact total', tabula: contents + q3, directus: `/items/products${directusQ3}` },
    { name: 'Q5', description: 'a page of 1,000 rows, newest first, no total', tabula: `${contents}?size=1000&withCount=false`, directus: `/items/products${q({ sort: '-date_created', limit: 1000 })}` },
  ];

  const shapes: Shape[] = [];
  for (const d of definitions) {
    const target = (base: string, path: string | (() => string), headers: Record<string, string>): LoadTarget =>
      typeof path === 'string' ? { url: base + path, headers } : { url: base + path(), headers, next: () => ({ path: path() }) };
    const targets = {
      tabula: target(tabula, d.tabula, tabulaAuth),
      directus: target(directus.plain, d.directus, directusAuth),
      'directus-cached': target(directus.cached, d.directus, directusAuth),
    };
    const once = (base: string, path: string | (() => string), secret: string) => ask(base + (typeof path === 'string' ? path : path()), secret);
    const answers = {
      tabula: await once(tabula, d.tabula, fixture.writeKey),
      directus: await once(directus.plain, d.directus, token),
      'directus-cached': await once(directus.cached, d.directus, token),
    };
    if (answers.tabula.rows !== answers.directus.rows || answers.tabula.total !== answers.directus.total) {
      throw new Error(`${d.name}: Tabula answered ${answers.tabula.rows} rows (total ${answers.tabula.total}), Directus ${answers.directus.rows} (total ${answers.directus.total})`);
    }
    shapes.push({
      name: d.name,
      description: d.description,
      targets,
      bytesPerRow: Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, a.bytes / a.rows])),
      check: `${answers.tabula.rows} rows on both${answers.tabula.total === null ? '' : `, total ${answers.tabula.total} on both`}`,
    });
  }
  return shapes;
}
