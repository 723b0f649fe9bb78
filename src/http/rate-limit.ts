import type { RequestHandler } from 'express';
import type { AppDeps } from '../app-deps.js';
import { rateLimited } from '../errors/app-error.js';
import { describeError } from '../errors/describe.js';
import type { SharedTokenBuckets } from '../rate-limit/token-bucket.js';
import { clientIp } from './client-ip.js';
import { notePrincipal } from './request-tracking.js';
import { sendError } from './send-error.js';

/**
 * docs/concepts.md#rate-limits: a token bucket per credential (per client IP when the request carries no valid
 * credential), shared across API processes. Every response carries RateLimit-* headers; past
 * the limit the answer is 429 RATE_LIMITED with Retry-After.
 */
export function rateLimit(deps: AppDeps, buckets: SharedTokenBuckets): RequestHandler {
  const limit = String(deps.config.RATE_LIMIT_BURST);
  return async (req, res, next) => {
    try {
      // Resolving here costs nothing extra: the result is cached for the procedure's own check.
      const principal = await deps.credentials.resolve(req.headers.authorization).catch(() => null);
      notePrincipal(res, principal);
      const key = principal
        ? principal.kind === 'account'
          ? `token:${principal.tokenId}`
          : `key:${principal.apiKeyId}`
        : `ip:${clientIp(req)}`;
      const decision = await buckets.take(key);
      res.setHeader('RateLimit-Limit', limit);
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (decision.allowed) return next();
      sendError(res, describeError(rateLimited(decision.retryAfterSeconds)));
    } catch (error) {
      next(error);
    }
  };
}
