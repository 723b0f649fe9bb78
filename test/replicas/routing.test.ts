import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lagBehind, pickReplica, replicaFailure } from '../../src/db/replicas.js';
import { formatLsn, parseLsn } from '../../src/db/wal-position.js';

/* The decisions of read routing (src/db/replicas.ts), without a database. */

const lsn = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const replica = fc.record({ replayed: lsn, lagMs: fc.nat({ max: 5_000 }) });
/** Eligible replicas as the health checker lists them: least lag first. */
const eligible = fc.array(replica, { maxLength: 5 }).map((rs) => [...rs].sort((a, b) => a.lagMs - b.lagMs));

describe('consistency tokens', () => {
  it('are WAL positions in PostgreSQL spelling, read back exactly', () => {
    fc.assert(fc.property(lsn, (n) => parseLsn(formatLsn(n)) === n));
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n);
    expect(formatLsn(0x16b374d848n)).toBe('16/B374D848');
  });

  it('order as positions do, not as text does', () => {
    expect(parseLsn('0/A0000000')! > parseLsn('0/9FFFFFFF')!).toBe(true);
    expect(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!).toBe(true);
  });

  it('refuse anything else', () => {
    for (const bad of ['', 'x', '0/', '/0', '0/0/0', '123456789/0', '0x1/2', ' 1 / 2', '-1/0']) expect(parseLsn(bad)).toBeNull();
  });
});

describe('pickReplica', () => {
  it('with a token, only ever picks a replica that has replayed it, the least-lagging such one', () => {
    fc.assert(
      fc.property(eligible, lsn, fc.nat(), (rs, wanted, turn) => {
        const picked = pickReplica(rs, wanted, turn);
        const able = rs.filter((r) => r.replayed >= wanted);
        if (able.length === 0) return picked === null;
        return picked === able[0];
      }),
    );
  });

  it('without a token, picks a replica of least lag, and spreads reads over equally caught-up ones', () => {
    fc.assert(
      fc.property(eligible, fc.nat(), (rs, turn) => {
        const picked = pickReplica(rs, undefined, turn);
        if (rs.length === 0) return picked === null;
        return picked !== null && picked.lagMs === rs[0].lagMs;
      }),
    );
    const twins = [{ replayed: 5n, lagMs: 0 }, { replayed: 5n, lagMs: 0 }, { replayed: 9n, lagMs: 40 }];
    expect(new Set([0, 1, 2, 3].map((turn) => pickReplica(twins, undefined, turn)))).toEqual(new Set([twins[0], twins[1]]));
  });

  it('sends a token that is not a position to the primary', () => {
    expect(pickReplica([{ replayed: 1n << 60n, lagMs: 0 }], null, 0)).toBeNull();
  });
});

describe('lagBehind', () => {
  const samples = [{ at: 1_000, lsn: 100n }, { at: 1_200, lsn: 200n }, { at: 1_400, lsn: 300n }];

  it('is zero once the replica has the newest position of the primary, the age of the oldest one it misses otherwise', () => {
    expect(lagBehind(samples, 300n, 5_000)).toBe(0);
    expect(lagBehind(samples, 250n, 1_500)).toBe(100);
    expect(lagBehind(samples, 99n, 1_500)).toBe(500);
    expect(lagBehind([], 0n, 1_500)).toBe(Infinity);
  });

  it('only grows while the replica stands still', () => {
    fc.assert(fc.property(lsn, fc.nat(), fc.nat(), (replayed, a, b) => lagBehind(samples, replayed % 400n, 2_000 + Math.min(a, b)) <= lagBehind(samples, replayed % 400n, 2_000 + Math.max(a, b))));
  });
});

describe('replicaFailure', () => {
  it('hands gone nodes and answers a replica cannot give yet to the primary, and nothing else', () => {
    expect(replicaFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe('down');
    expect(replicaFailure(new Error('Connection terminated unexpectedly'))).toBe('down');
    expect(replicaFailure({ code: '57P01', message: 'terminating connection due to administrator command' })).toBe('down');
    expect(replicaFailure({ code: '57P03', message: 'the database system is starting up' })).toBe('down');
    expect(replicaFailure({ code: '40001', message: 'canceling statement due to conflict with recovery' })).toBe('retry');
    expect(replicaFailure({ code: '42703', message: 'column "x" does not exist' })).toBe('retry');
    expect(replicaFailure({ code: '22P02', message: 'invalid input syntax for type uuid' })).toBeNull();
    expect(replicaFailure({ code: '23505', message: 'duplicate key' })).toBeNull();
  });
});
