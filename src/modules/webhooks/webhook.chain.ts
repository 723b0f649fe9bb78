import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { runSql } from '../../db/sql.js';
import { outboxOfEm } from '../../jobs/outbox.js';
import { QUEUES } from '../../jobs/queues.js';
import { deliveryJobInsert } from './webhook.jobs.js';
import { oldestPendingEvent } from './webhook.sql.js';

/*
 * Order of deliveries. The events of one subject (contents row, file, table) for one webhook form
 * a chain: only its oldest pending event has a delivery job; the others wait, without a job,
 * behind it. When that event is settled (delivered, or out of retries), the next one is sent
 * (by the worker that settled it, in the same job, or else through a job of its own). So a
 * receiver gets a row's events in commit order, each one only after the one before it was
 * delivered or given up, while the chains of other rows go on in parallel.
 *
 * Who hands over to whom, without a lock between the fan-out and the delivery workers: the
 * fan-out marks the pending tail of a chain (`has_successor`) in the statement that finds it,
 * and its new event waits only if that row was still pending when the mark was written (a
 * concurrent settling is seen: the update re-reads the locked row). The settling of an event
 * returns the row's `has_successor` from the same update that settles it, so whichever of the
 * two writes second sees the other: either the fan-out found no pending tail (its event is sent
 * at once) or the settling sees the mark (and releases the next event, looked up by a later
 * statement, which sees the fan-out's commit).
 */

/** The oldest pending event of a chain, and whether it was ever attempted (a job of its own). */
async function oldestPending(em: EntityManager, webhookId: string, subjectId: string): Promise<{ event_id: string; attempts: number } | undefined> {
  const [event] = await runSql<{ event_id: string; attempts: number }>(em, oldestPendingEvent(webhookId, subjectId));
  return event;
}

/**
 * Gives the next pending event of a chain its first delivery job, after an event of the chain
 * was settled and had a successor. Idempotent: a job that runs again (its worker died after the
 * settling committed) releases the same event, whose job id is already taken.
 */
export async function releaseNext(em: EntityManager, boss: PgBoss, webhookId: string, subjectId: string): Promise<void> {
  const next = await oldestPending(em, webhookId, subjectId);
  if (next) await boss.insert(QUEUES.deliveries.name, [deliveryJobInsert({ webhookId, eventId: next.event_id, attempt: 1 })], { db: outboxOfEm(em) });
}

/**
 * The event to deliver right after a settled one of its chain, in the same job, instead of
 * releasing it (which costs a job and a wake-up of the workers): the oldest pending one, if it
 * was never attempted (it has no job of its own then).
 */
export async function nextWaiting(em: EntityManager, webhookId: string, subjectId: string): Promise<string | undefined> {
  const next = await oldestPending(em, webhookId, subjectId);
  return next && next.attempts === 0 ? next.event_id : undefined;
}

/** Where an event of a chain stands, as its settling update returned it. */
export interface ChainLink {
  subjectId: string | null;
  state: string;
  hasSuccessor: boolean;
}

/** Settled (delivered or exhausted) with an event waiting behind it: that one is to be released. */
export const isReleasing = (link: ChainLink): boolean =>
  link.subjectId !== null && link.hasSuccessor && (link.state === 'delivered' || link.state === 'exhausted');

export async function releaseAfter(em: EntityManager, boss: PgBoss, link: ChainLink & { webhookId: string }): Promise<void> {
  if (isReleasing(link)) await releaseNext(em, boss, link.webhookId, link.subjectId!);
}
