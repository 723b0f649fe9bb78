import { createHash } from 'node:crypto';

/** One automatic delivery attempt of one event to one webhook (queue `webhook-deliveries`). */
export interface DeliveryJob {
  webhookId: string;
  eventId: string;
  /** 1 for the first delivery, then one more per scheduled retry. */
  attempt: number;
}

/** Fixed namespace of Tabula's name-based job ids (any constant UUID would do). */
const NAMESPACE = Buffer.from('6f1c2d3e4a5b46c7a8d9e0f1a2b3c4d5', 'hex');

/** A UUID version 5 (RFC 9562, SHA-1 name-based) of `name`: the same name always gives the same id. */
export function uuidv5(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The pg-boss id of a delivery job. Derived from what the job is, so that a fan-out or a
 * scheduling step that runs twice inserts the same id, and pg-boss keeps one job.
 */
export const deliveryJobId = (job: DeliveryJob): string => uuidv5(`${job.eventId}:${job.webhookId}:${job.attempt}`);

/**
 * A delivery job as pg-boss inserts it. The group lets the delivery worker cap how many slots one
 * webhook may hold.
 */
export const deliveryJobInsert = (data: DeliveryJob) => ({ id: deliveryJobId(data), data, group: { id: data.webhookId } });
