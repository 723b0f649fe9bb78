import type { SqlQuery } from '../db/sql.js';

/**
 * Refills the shared bucket `key` (at most `burst` tokens, `ratePerSecond` since its last
 * update) and takes up to `lease` whole tokens from it; returns how many it granted and what is
 * left. A new bucket starts full.
 */
export const takeTokens = (key: string, burst: number, ratePerSecond: number, lease: number): SqlQuery => ({
  text: `insert into rate_bucket as b (key, tokens, granted, updated_at)
         values ($1, $2::float8 - least($2::float8, $4::float8), least($2::float8, $4::float8), now())
       on conflict (key) do update set
         granted = least(floor(least($2::float8, b.tokens + greatest(0, extract(epoch from now() - b.updated_at)) * $3::float8)), $4::float8),
         tokens = least($2::float8, b.tokens + greatest(0, extract(epoch from now() - b.updated_at)) * $3::float8)
                  - least(floor(least($2::float8, b.tokens + greatest(0, extract(epoch from now() - b.updated_at)) * $3::float8)), $4::float8),
         updated_at = now()
       returning granted, tokens`,
  values: [key, burst, ratePerSecond, lease],
});
