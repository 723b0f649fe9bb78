import { setTimeout as delay } from 'node:timers/promises';
import type { Job, JobResult, PgBoss } from 'pg-boss';
import type { Config } from '../../src/config/config.js';
import type { Orm } from '../../src/db/orm.js';
import { QUEUES } from '../../src/jobs/queues.js';
import { createDeliveryAgent } from '../../src/net/ssrf.js';
import type { Logger } from '../../src/shared/logger.js';
import { loadTargets, recordAttempt, sendOnce, targetKey, type DeliveryTarget } from '../../src/modules/webhooks/webhook.delivery.js';
import type { DeliveryJob } from '../../src/modules/webhooks/webhook.jobs.js';
import { nextWaiting, releaseAfter, releaseNext } from '../../src/modules/webhooks/webhook.chain.js';

/*
 * Isolation of slow endpoints. A pg-boss worker loop is busy until its whole batch has been
 * handled, and one attempt may take up to its 10 s deadline. So:
 * - many loops with small batches, the jobs of a batch sent concurrently;
 * - delivery jobs are grouped by webhook, and at most GROUP_LIMIT jobs of one webhook are active
 *   at once (pg-boss counts them in the database, across worker processes): a webhook that hangs
 *   holds at most GROUP_LIMIT of the LOOPS loops for 10 s, the others keep delivering to
 *   everyone else, and a healthy endpoint still gets GROUP_LIMIT requests in parallel;
 * - a batch that is still running after SLOW_BATCH_MS settles its finished jobs at once, so that
 *   jobs sharing a batch with a hanging endpoint do not stay active (and count against their own
 *   webhook's limit) beside it.
 * Measured on a 2-core machine (API, worker and receiver in one process): ~500 deliveries/s to
 * one endpoint; smaller batches or a lower group limit cost throughput, fewer loops isolation.
 */
const LOOPS = 32;
const BATCH_SIZE = 8;
const GROUP_LIMIT = 16;
const SLOW_BATCH_MS = 200;
/**
 * A job delivers the next events of its row itself (see deliver) up to this many in all, and only
 * while it has run for less than CHAIN_MS: with a 10 s attempt on top, it stays well within the
 * 60 s expiry of its queue, and one busy row cannot hold a loop for long.
 */
const CHAIN_EVENTS = 20;
const CHAIN_MS = 20_000;

/**
 * Delivery (queue `webhook-deliveries`): one automatic attempt per job (followed by the first
 * attempts of the events of its row that wait behind it, see deliver). The outcome, and the next
 * attempt when one is due, are recorded by `recordAttempt`; a job only fails (and is retried by
 * pg-boss) when that bookkeeping could not be done, or when the worker shut down mid-request.
 */
export function startDeliveryWorker(boss: PgBoss, orm: Orm, logger: Logger, config: Config): Promise<string> {
  const agent = createDeliveryAgent(config.WEBHOOKS_ALLOW_PRIVATE);
  boss.once('stopped', () => void agent.close().catch(() => {}));
  const em = orm.em.fork();
  const log = logger.child({ worker: 'webhook-delivery' });
  const queue = QUEUES.deliveries.name;

  /**
   * Sends the attempt the job stands for, unless it no longer applies; then, while each event it
   * delivers (or gives up) has the next one of its row waiting behind it, that one, in the same
   * job (see webhook.chain.ts): no job and no wake-up between two events of a row. Within
   * bounds: past them, or when the next one is not a fresh one, it is released to a job.
   */
  async function deliver(job: Job<DeliveryJob>, first: DeliveryTarget | undefined): Promise<void> {
    // Deleted webhook, disabled webhook (its pending events were cancelled), event delivered by a
    // manual retry, or a job run again after its attempt was recorded: nothing to send. A job
    // whose worker died after settling the event but before the next one of its row was sent
    // releases that one now.
    if (!first || !first.active || first.state !== 'pending' || first.nextAttempt !== job.data.attempt) {
      if (first) await releaseAfter(em, boss, first);
      return;
    }
    const started = Date.now();
    let target = first;
    let attempt = job.data.attempt;
    for (let sent = 1; ; sent++) {
      const outcome = await sendOnce(target, agent, config.WEBHOOKS_ALLOW_PRIVATE, job.signal);
      if (!outcome) throw new Error('worker shut down during the request');
      const recorded = await recordAttempt(em, boss, target, outcome, { kind: 'auto', attempt }, config.WEBHOOK_RETRY_DELAYS, 'caller');
      if (!recorded?.releases) return;
      const { webhookId, subjectId } = target;
      const inBounds = sent < CHAIN_EVENTS && Date.now() - started < CHAIN_MS && !job.signal.aborted;
      const nextId = inBounds ? await nextWaiting(em, webhookId, subjectId!) : undefined;
      const next = nextId && (await loadTargets(em, [{ webhookId, eventId: nextId }])).get(targetKey(webhookId, nextId));
      if (!next || !next.active || next.state !== 'pending' || next.nextAttempt !== 1) return releaseNext(em, boss, webhookId, subjectId!);
      target = next;
      attempt = 1;
    }
  }

  return boss.work(
    queue,
    {
      batchSize: BATCH_SIZE,
      localConcurrency: LOOPS,
      groupConcurrency: GROUP_LIMIT,
      perJobResults: true,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      notifyPollingIntervalSeconds: 1,
    },
    async (jobs: Job<DeliveryJob>[]): Promise<JobResult[]> => {
      const targets = await loadTargets(em, jobs.map((job) => job.data));
      const finished = new Map<string, JobResult>();
      const running = jobs.map((job) =>
        attempt(job, targets.get(targetKey(job.data.webhookId, job.data.eventId))).then((result) => {
          finished.set(job.id, result);
          return result;
        }),
      );
      const all = Promise.all(running);
      // Usually every attempt is over within milliseconds and pg-boss settles the batch in one
      // statement. When one is still waiting on a slow endpoint, the others are settled at once
      // (and each later one as it ends), so that they do not stay "active" beside it for up to
      // 10 s, counted against their own webhook's limit.
      if (await Promise.race([all.then(() => true), delay(SLOW_BATCH_MS).then(() => false)])) return all;
      await settle(jobs.filter((job) => finished.has(job.id)), finished);
      jobs.forEach((job, i) => {
        if (!finished.has(job.id)) void running[i].then(() => settle([job], finished));
      });
      return all;
    },
  );

  async function attempt(job: Job<DeliveryJob>, target: DeliveryTarget | undefined): Promise<JobResult> {
    try {
      await deliver(job, target);
      return { id: job.id, status: 'completed' };
    } catch (error) {
      log.warn({ err: error, jobId: job.id, ...job.data }, 'delivery job failed; pg-boss retries it');
      return { id: job.id, status: 'failed', output: { message: error instanceof Error ? error.message : String(error) } };
    }
  }

  /**
   * Settles jobs before their batch ends, fenced to the attempt that was fetched (pg-boss's own
   * settlement of the batch then finds them settled and leaves them). A job aborted by a
   * shutdown was already failed back to the queue.
   */
  async function settle(done: Job<DeliveryJob>[], results: Map<string, JobResult>): Promise<void> {
    const live = done.filter((job) => !job.signal.aborted);
    const completed = live.filter((job) => results.get(job.id)?.status === 'completed');
    const failed = live.filter((job) => results.get(job.id)?.status !== 'completed');
    try {
      if (completed.length) await boss.complete(queue, completed);
      for (const job of failed) await boss.fail(queue, job, results.get(job.id)?.output ?? null);
    } catch (error) {
      log.warn({ err: error }, 'could not settle delivery jobs early; the batch settles them');
    }
  }
}
