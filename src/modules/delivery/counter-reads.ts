import type pg from 'pg';
import { sqlOn } from '../../db/sql.js';
import { scopeVersions } from './delivery.sql.js';

/*
 * Reads of the change counters an ETag is made of (docs/scaling-out.md#http-caches-and-purging),
 * shared between the requests of one API process and one database node. One read at a time per
 * node: requests that ask while a read runs wait for the next one, which reads the union of
 * their scopes in one statement and starts after all of them arrived.
 *
 * A request never joins a read that started before it: such a read could miss a write the
 * client had already been answered, and its counters would then make a 304 of the body before
 * that write (the client would not read its own write). A read that starts after the request
 * arrived sees every commit before it, and it is still made before the answer is read, so a tag
 * never names counters newer than its body.
 */

type Versions = ReadonlyMap<string, string>;

interface Waiting {
  scopes: Set<string>;
  promise: Promise<Versions>;
}

class NodeCounters {
  private running: Promise<unknown> | null = null;
  private next: Waiting | null = null;

  constructor(private readonly pool: pg.Pool) {}

  read(scopes: readonly string[]): Promise<Versions> {
    if (!this.running) return this.start(new Set(scopes));
    if (!this.next) {
      const waiting: Waiting = { scopes: new Set(), promise: null! };
      const after = this.running.catch(() => undefined);
      waiting.promise = after.then(() => {
        this.next = null;
        return this.start(waiting.scopes);
      });
      this.next = waiting;
    }
    for (const scope of scopes) this.next.scopes.add(scope);
    return this.next.promise;
  }

  private start(scopes: Set<string>): Promise<Versions> {
    const run = sqlOn(this.pool)<{ scope: string; version: string }>(scopeVersions([...scopes])).then(
      (rows) => new Map(rows.map((row) => [row.scope, row.version])),
    );
    const settled = run.finally(() => {
      if (this.running === settled) this.running = null;
    });
    this.running = settled;
    return settled;
  }
}

const nodes = new WeakMap<pg.Pool, NodeCounters & { id: number }>();
let nodeIds = 0;

function nodeOf(pool: pg.Pool): NodeCounters & { id: number } {
  let node = nodes.get(pool);
  if (!node) nodes.set(pool, (node = Object.assign(new NodeCounters(pool), { id: ++nodeIds })));
  return node;
}

/**
 * A name of the node within this process: counters of different nodes (a primary and a lagging
 * replica) are not comparable, so what is remembered per counters is remembered per node.
 */
export const nodeName = (pool: pg.Pool): number => nodeOf(pool).id;

/** The counters of `scopes` on the node of `pool` (absent: never changed), read after this call. */
export function readCounters(pool: pg.Pool, scopes: readonly string[]): Promise<Versions> {
  return nodeOf(pool).read(scopes);
}
