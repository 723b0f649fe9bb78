/**
 * Every pg-boss queue of the system, one per job kind. The API only sends; workers work them.
 * Options here are the queue's defaults; a send may override them.
 */
export const QUEUES = {
  /** Hard-deletes rows below a soft-deleted workspace, project, table or column. */
  purge: { name: 'purge', options: { retryLimit: 10, retryDelay: 5, retryBackoff: true } },
  /**
   * One webhook delivery attempt each. HTTP failures are recorded and retried on the
   * schedule of docs/webhooks.md#retries-and-disabling by sending a new delayed job; these pg-boss retries only cover a worker that
   * died or shut down mid-attempt (expiry: the 10 s attempt plus its bookkeeping).
   */
  deliveries: {
    name: 'webhook-deliveries',
    // A worker that dies (SIGKILL, lost machine) stops its heartbeat: its attempt is failed and
    // retried by another worker within heartbeatSeconds plus a monitor pass, not after the expiry.
    options: { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 60, heartbeatSeconds: 10, deleteAfterSeconds: 86_400 },
  },
  /** Hourly removal of webhook events and delivery attempts past retention. */
  webhookRetention: { name: 'webhook-retention', options: { retryLimit: 2, retryDelay: 60 } },
  /** Batches of request log entries from the API processes (docs/logs-and-metrics.md#request-logs), inserted in bulk. */
  requestLogs: { name: 'request-logs', options: { retryLimit: 10, retryDelay: 2, retryBackoff: true, deleteAfterSeconds: 3600 } },
  /** Folds new request logs into hourly rollups; scheduled every minute. */
  logRollup: { name: 'request-log-rollup', options: { retryLimit: 2, retryDelay: 10, deleteAfterSeconds: 3600 } },
  /** Hourly removal of request logs past LOG_RETENTION_DAYS. */
  logRetention: { name: 'request-log-retention', options: { retryLimit: 2, retryDelay: 60 } },
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]['name'];

export interface PurgeJob {
  kind: 'workspace' | 'project' | 'table' | 'column';
  id: string;
}
