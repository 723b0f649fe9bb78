import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * WAL positions (LSNs) as the consistency token of docs/scaling-out.md#read-replicas: the text form
 * PostgreSQL prints (`16/B374D848`, two hexadecimal halves of a 64-bit position), compared as
 * 64-bit numbers.
 */

const LSN = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** The position as a number, or null when the text is not an LSN (a token a client mangled). */
export function parseLsn(text: string | null | undefined): bigint | null {
  const m = text ? LSN.exec(text.trim()) : null;
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

/** The inverse of parseLsn, in PostgreSQL's own spelling. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * The WAL insert position, read after a commit. Insert rather than write/flush position: it is
 * past the commit record whatever `synchronous_commit` says, so a replica that has replayed up
 * to it has replayed the commit.
 */
export const WAL_POSITION_SQL = 'select pg_current_wal_insert_lsn()::text as lsn';

/** One write request's highest commit position, filled in by the transactions it runs. */
export interface WritePosition {
  lsn: bigint | null;
}

/**
 * The write request a transaction belongs to, when any: `transaction()` (db/sql.ts) then reads
 * the position in the round trip of its COMMIT, and the request answers it without asking again.
 */
export const writePositions = new AsyncLocalStorage<WritePosition>();

/** Notes a commit position on the current write request (the highest one wins). */
export function noteCommitPosition(text: string | undefined): void {
  const store = writePositions.getStore();
  const lsn = parseLsn(text);
  if (store && lsn !== null && (store.lsn === null || lsn > store.lsn)) store.lsn = lsn;
}
