import { AUTHORS, TOPICS, type Fixture } from './setup.js';
import { percentile } from './percentile.js';

/*
 * First-time latency of the relational filter and of search: each request a query no earlier
 * request asked (so no cached page or total serves it), one at a time. The load scenarios (R2,
 * R3) draw from 1,000 and 100 variants and soon hit cached results; this shows what the
 * database work itself costs.
 */

export interface ColdLatency {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

async function probe(name: string, urls: string[], headers: Record<string, string>): Promise<ColdLatency> {
  const times: number[] = [];
  for (const url of urls) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${name}: ${url} answered ${res.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { name, requests: times.length, p50: percentile(times, 50) ?? NaN, p99: percentile(times, 99) ?? NaN, max: times.at(-1)! };
}

export async function coldLatencies(api: string, fixture: Fixture): Promise<ColdLatency[]> {
  const contents = `${api}/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const headers = { authorization: `Bearer ${fixture.writeKey}` };
  const filter = (n: number) => encodeURIComponent(JSON.stringify([{ i: 'author.name', w: 'eq', v: `Author ${n}` }]));
  // Distinct page sizes make each request a query of its own, whatever was asked before.
  const authors = Array.from({ length: Math.min(AUTHORS, 300) }, (_, n) => `${contents}?filter=${filter(n)}&size=${21 + n}`);
  const topics = Array.from({ length: 300 }, (_, n) => `${contents}?search=topic${String(n % TOPICS).padStart(2, '0')}&size=${21 + n}`);
  return [await probe('R2 cold: author.name eq, exact total', authors, headers), await probe('R3 cold: search 1 % of rows, exact total', topics, headers)];
}
