/**
 * Lists under writes: 29 connections read several filtered lists with exact totals while 3
 * connections create and update rows, against the same reads without writers, in one run.
 * Some of the lists are touched by the writes (the default order, category `b`, prices below
 * 100) and some are not (Q3: category `c` with prices 100-500, page 3; contains 'lorem 12').
 */
import autocannon from 'autocannon';
import type { Fixture } from './setup.js';

export interface MixedResult {
  readOnly: { readsPerSecond: number; p99: number; errors: number };
  mixed: { readsPerSecond: number; p99: number; writesPerSecond: number; writeP99: number; errors: number };
  /** Reads under the mix as a share of the read-only figure. */
  readShare: number;
  /** Writes among all requests under the mix. */
  writeShare: number;
}

const q = (params: Record<string, unknown>) =>
  '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');

export async function benchMixed(env: { api: string; fixture: Fixture; duration: number }): Promise<MixedResult> {
  const { api, fixture } = env;
  const contents = `/v1/${fixture.projectId}/tables/${fixture.tableId}/contents`;
  const headers = { authorization: `Bearer ${fixture.writeKey}`, 'content-type': 'application/json' };
  const reads = [
    q({ filter: [{ i: 'category', w: 'eq', v: 'c' }, { i: 'price', w: 'between', v: [100, 500] }], sort: [{ i: 'price', o: 'asc' }], page: 3 }),
    q({ filter: [{ i: 'title', w: 'contains', v: 'lorem 12' }] }),
    q({ filter: [{ i: 'category', w: 'eq', v: 'b' }] }),
    q({ filter: [{ i: 'price', w: 'lt', v: 100 }], sort: [{ i: 'price', o: 'desc' }], page: 2 }),
    '',
    q({ filter: [{ i: 'category', w: 'in', v: ['d', 'e'] }], sort: [{ i: 'price', o: 'desc' }] }),
  ].map((query) => contents + query);
  let readIndex = 0;
  const readTarget = (duration: number) =>
    autocannon({
      url: api + reads[0],
      headers,
      connections: 29,
      duration,
      requests: [{ setupRequest: (request) => ({ ...request, path: reads[readIndex++ % reads.length] }) }],
    });
  let written = 0;
  const writeTarget = (duration: number) =>
    autocannon({
      url: api + contents,
      headers,
      connections: 3,
      duration,
      requests: [
        {
          setupRequest: (request) => {
            written++;
            // Creates in category b with low prices; updates move an existing row's price anywhere.
            if (written % 3 === 0) {
              const id = fixture.ids[Math.floor(Math.random() * fixture.ids.length)];
              return { ...request, method: 'PUT', path: `${contents}/${id}`, body: JSON.stringify({ data: { price: Math.floor(Math.random() * 1000) } }) };
            }
            const body = JSON.stringify({ data: { title: `mixed ${written}`, category: 'b', price: written % 100, qty: 1 } });
            return { ...request, method: 'POST', path: contents, body };
          },
        },
      ],
    });

  await readTarget(2);
  const readOnly = await readTarget(env.duration);
  await Promise.all([readTarget(2), writeTarget(2)]);
  const [mixedReads, writes] = await Promise.all([readTarget(env.duration), writeTarget(env.duration)]);
  const readsPerSecond = mixedReads.requests.average;
  return {
    readOnly: { readsPerSecond: readOnly.requests.average, p99: readOnly.latency.p99, errors: readOnly.errors + readOnly.non2xx },
    mixed: {
      readsPerSecond,
      p99: mixedReads.latency.p99,
      writesPerSecond: writes.requests.average,
      writeP99: writes.latency.p99,
      errors: mixedReads.errors + mixedReads.non2xx + writes.errors + writes.non2xx,
    },
    readShare: readsPerSecond / readOnly.requests.average,
    writeShare: writes.requests.average / (writes.requests.average + readsPerSecond),
  };
}
