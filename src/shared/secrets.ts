import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const ACCOUNT_TOKEN_PREFIX = 'tat_';
export const API_KEY_PREFIX = 'tak_';
/** Listings show the first 12 characters (docs/concepts.md#api-keys). */
export const DISPLAY_PREFIX_LENGTH = 12;

/** `prefix` + 43 random base62 characters (~256 bits). */
export function generateSecret(prefix: string): string {
  let out = prefix;
  for (let i = 0; i < 43; i++) out += BASE62[randomInt(62)];
  return out;
}

export const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

export const SECRET_SHAPE = /^(tat|tak)_[A-Za-z0-9]{43}$/;

/** Constant-time comparison of two digests of equal length. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
