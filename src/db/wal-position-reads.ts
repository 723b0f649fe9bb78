import type pg from 'pg';
import { WAL_POSITION_SQL } from './wal-position.js';

/*
 * The WAL position after a write that did not read it in its COMMIT's round trip (a statement
 * outside any transaction, such as a batch of creates, or the entity manager's writes), read
 * once for the writes that ask together instead of once each: at 32 concurrent creates, a read
 * per request was as many statements as the creates' batches themselves.
 *
 * A write may only use a read that started after it asked (its commit is then behind the
 * position read). While a read runs, the writes that ask wait for the next one, shared by all of
 * them and started once the running one is done: one read at a time per pool.
 */

interface NodeReads {
  running: Promise<string | undefined> | null;
  next: Promise<string | undefined> | null;
}

const nodes = new WeakMap<pg.Pool, NodeReads>();

function start(pool: pg.Pool, node: NodeReads): Promise<string | undefined> {
  const run = pool.query<{ lsn: string }>(WAL_POSITION_SQL).then((result) => result.rows[0]?.lsn);
  const settled = run.finally(() => {
    if (node.running === settled) node.running = null;
  });
  node.running = settled;
  return settled;
}

/** The WAL insert position of `pool`'s server, read after this call (text, as PostgreSQL prints it). */
export function readWalPositionAfter(pool: pg.Pool): Promise<string | undefined> {
  let node = nodes.get(pool);
  if (!node) nodes.set(pool, (node = { running: null, next: null }));
  const n = node;
  if (n.next) return n.next;
  if (!n.running) return start(pool, n);
  n.next = n.running
    .catch(() => undefined)
    .then(() => {
      n.next = null;
      return start(pool, n);
    });
  return n.next;
}
