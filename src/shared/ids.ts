import { randomFillSync } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_RE.test(value);

/**
 * UUID version 7 (RFC 9562): 48 bits of milliseconds, then random bits. Time-ordered ids keep
 * B-tree inserts at the right edge of the index and make "ties broken by id" follow creation.
 */
export function uuidv7(now = Date.now()): string {
  const bytes = Buffer.allocUnsafe(16);
  takeRandom(bytes);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Random bytes drawn from a pool refilled 4 KiB at a time: one call into the CSPRNG per 256 ids
 * instead of one per id (ids are minted on every logged request).
 */
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;
function takeRandom(target: Buffer): void {
  if (poolOffset + target.length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, 0, poolOffset, poolOffset + target.length);
  poolOffset += target.length;
}
