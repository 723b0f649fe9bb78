import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppDeps } from '../app-deps.js';
import type { ProjectAccessLevel } from '../auth/project-access.js';
import { formatLsn, parseLsn, writePositions, type WritePosition } from '../db/wal-position.js';
import { readWalPositionAfter } from '../db/wal-position-reads.js';
import type { Context } from './context.js';

/*
 * Reads on replicas, writes answering where they committed (docs/scaling-out.md#read-replicas).
 * Both faces (`/v1`, `/trpc`) carry the token in the same headers.
 */

/** A write's answer, and what a read sends back to read its own writes. */
export const CONSISTENCY_HEADER = 'Tabula-Consistency';
/** Which node a routed read went to (`primary`, `replica-1`, ...), when replicas are configured. */
export const SERVED_BY_HEADER = 'Tabula-Served-By';

/** Project levels whose queries only read: their GETs may go to a replica. */
const READ_LEVELS: ReadonlySet<ProjectAccessLevel> = new Set(['read', 'logs', 'revisions']);

/**
 * The collaborators a project procedure works with: the request's own, or for a read-only GET
 * with replicas configured, the same with the pool (and the list cache kept for that node) of
 * the node the read goes to. Everything that reads through `deps.pool` or `deps.results`
 * follows; the entity manager (accounts, roles, tables' definitions) stays on the primary.
 */
export function depsForRequest(ctx: Context, level: ProjectAccessLevel, type: string): AppDeps {
  return type === 'query' ? depsForRead(ctx.deps, ctx.req, ctx.res, level) : ctx.deps;
}

/** As depsForRequest, for a request that only reads (a query, or a plain route that reads). */
export function depsForRead(deps: AppDeps, req: IncomingMessage, res: ServerResponse, level: ProjectAccessLevel): AppDeps {
  if (deps.reads.size === 0 || !READ_LEVELS.has(level) || (req.method !== 'GET' && req.method !== 'HEAD')) return deps;
  const sent = req.headers['tabula-consistency'];
  // Sent twice, or not a position: no replica is known to have it.
  const node = deps.reads.route(sent === undefined ? undefined : typeof sent === 'string' ? sent : '');
  if (!res.headersSent) res.setHeader(SERVED_BY_HEADER, node.name);
  return node === deps.reads.primary ? deps : { ...deps, pool: node.pool, results: node.local };
}

/**
 * Answers, on `res`, the WAL position after a write's commits. Transactions of the contents path
 * note theirs in `store` in the round trip of their COMMIT (db/sql.ts); for anything else (the
 * entity manager's writes, batched creates) the position is read now, after those commits, by a
 * read shared with the writes that ask meanwhile (db/wal-position-reads.ts).
 */
export async function answerWritePosition(deps: AppDeps, res: ServerResponse, store: WritePosition): Promise<void> {
  if (res.headersSent) return;
  let lsn = store.lsn;
  if (lsn === null) {
    try {
      lsn = parseLsn(await readWalPositionAfter(deps.pool));
    } catch (error) {
      // The write has committed: it is answered, without a token.
      deps.logger.warn({ err: error }, 'could not read the WAL position after a write');
    }
  }
  if (lsn === null || res.headersSent) return;
  // A tRPC batch of several mutations answers one header: the highest of their positions.
  const earlier = parseLsn(res.getHeader(CONSISTENCY_HEADER) as string | undefined);
  if (earlier === null || lsn > earlier) res.setHeader(CONSISTENCY_HEADER, formatLsn(lsn));
}

/** Runs a mutation (its transactions noting their commit positions) and answers the position. */
export async function withWritePosition<T extends { ok: boolean }>(ctx: Context, run: () => Promise<T>): Promise<T> {
  const store: WritePosition = { lsn: null };
  const result = await writePositions.run(store, run);
  if (result.ok) await answerWritePosition(ctx.deps, ctx.res, store);
  return result;
}
