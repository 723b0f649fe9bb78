import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secret prefix; the rest is the base64 of the key bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (docs/webhooks.md#what-a-delivery-looks-like). */
export const generateWebhookSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');

/** The HMAC key of a `whsec_…` secret: the base64-decoded part after the prefix. */
const keyOf = (secret: string): Buffer => Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');

/** `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>` (Standard Webhooks). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The `webhook-signature` header: one signature per secret, space-separated. After a rotation
 * both the new and the previous secret sign, so receivers can switch at their own pace.
 */
export const signatureHeader = (secrets: readonly string[], id: string, timestamp: number, body: string): string =>
  secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ');

/** Standard Webhooks request headers for one attempt. */
export function webhookHeaders(secrets: readonly string[], eventId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Tabula-Webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, eventId, timestamp, body),
  };
}
