import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type CallResult, type TestApi } from '../helpers/api.js';
import { buildWorld, contentsPath, createRow, createTable, expectStatus, putRow, type Table, type World } from '../contents/fixture.js';

/**
 * docs/scaling-out.md#etags-and-304: the counters of a tag are read after the request arrived
 * and before its answer, and concurrent requests share those reads. Under a steady stream of
 * reads (so that a shared read is always under way when a write is answered), after each write:
 * every read naming a tag of before the write is 200 with the write in its body (a read never
 * joins a counters read that could have missed it), every read naming the new tag is 304, and
 * over the whole run one strong tag of one URL never came with two different bodies.
 */
let t: TestApi;
let w: World;
let posts: Table;
let rowId: string;

beforeAll(async () => {
  t = await startTestApi({ CDN_MAX_AGE: '30' });
  w = await buildWorld(t);
  posts = await createTable(w, [{ name: 'title', type: 'text' }]);
  rowId = (await createRow(w, posts.id, { title: 'v0' }, { status: 'PUBLISHED' })).id;
});
afterAll(async () => {
  await t?.close();
});

/** Every 200 seen, per URL and tag: one body only. */
const bodies = new Map<string, string>();
function note(url: string, res: CallResult): void {
  if (res.status !== 200) return;
  const key = `${url} ${res.headers.get('etag')}`;
  const seen = bodies.get(key);
  if (seen !== undefined) expect(res.text, `${key} answered two bodies`).toBe(seen);
  else bodies.set(key, res.text);
}

const get = async (url: string, tag?: string) => {
  const res = await t.call('GET', url, { token: w.readKey, headers: tag ? { 'if-none-match': tag } : {} });
  note(url, res);
  return res;
};

describe('conditional reads under concurrent requests', () => {
  it('never answers 304 for a tag older than a write answered before the request', async () => {
    const urls = [contentsPath(w, posts.id), contentsPath(w, posts.id, rowId), `${contentsPath(w, posts.id)}?sort=${encodeURIComponent('[{"i":"title","o":"desc"}]')}`, `/v1/${w.projectId}/categories`];
    let running = true;
    const background = Array.from({ length: 8 }, async (_, i) => {
      let tag: string | undefined;
      while (running) {
        const res = await get(urls[i % urls.length], tag);
        tag = res.headers.get('etag') ?? undefined;
      }
    });
    try {
      let tags = await Promise.all(urls.map(async (url) => expectStatus(await get(url), 200) && (await get(url)).headers.get('etag')!));
      for (let round = 1; round <= 12; round++) {
        expectStatus(await putRow(w, posts.id, rowId, { data: { title: `v${round}` } }), 200);
        if (round % 4 === 0) expectStatus(await t.call('POST', `/v1/${w.projectId}/categories`, { body: { name: `c${round}` } }), 201);
        const answers = await Promise.all(urls.flatMap((url, i) => Array.from({ length: 4 }, () => get(url, tags[i]))));
        answers.forEach((res, n) => {
          const url = urls[Math.floor(n / 4)];
          if (url.includes('categories')) {
            // Categories changed every 4th round only: then 200, otherwise 304.
            expect(res.status, `${url} round ${round}`).toBe(round % 4 === 0 ? 200 : 304);
            if (round % 4 === 0) expect(res.text).toContain(`c${round}`);
          } else {
            expect(res.status, `${url} round ${round}: ${res.text}`).toBe(200);
            expect(res.text).toContain(`"v${round}"`);
          }
        });
        tags = urls.map((url, i) => answers[i * 4].headers.get('etag')!);
        const again = await Promise.all(urls.map((url, i) => get(url, tags[i])));
        for (const res of again) expect(res.status).toBe(304);
      }
    } finally {
      running = false;
      await Promise.all(background);
    }
  }, 120_000);

  it('contents reads take their counters from the change-log read; concurrent reads share it', async () => {
    const url = contentsPath(w, posts.id);
    const tag = (await get(url)).headers.get('etag')!;
    const pool = t.api.deps.pool;
    const original = pool.query.bind(pool);
    const statements: string[] = [];
    pool.query = ((...args: Parameters<typeof pool.query>) => {
      const query = args[0] as string | { name?: string; text: string };
      const name = typeof query === 'string' ? query : (query.name ?? query.text);
      if (!name.startsWith('events.feed')) statements.push(name);
      return original(...args);
    }) as typeof pool.query;
    try {
      const one = await get(url, tag);
      expect(one.status).toBe(304);
      expect(statements).toEqual(['contents.changes']);
      statements.length = 0;
      const many = await Promise.all(Array.from({ length: 32 }, () => get(url, tag)));
      for (const res of many) expect(res.status).toBe(304);
      expect(statements.filter((name) => name === 'cache.versions')).toEqual([]);
      expect(statements.every((name) => name === 'contents.changes')).toBe(true);
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.length).toBeLessThanOrEqual(32);
    } finally {
      pool.query = original;
    }
  });
});
