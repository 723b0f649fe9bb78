/**
 * Every pg-boss queue of the system, one per job kind. The API only sends; workers work them.
 * Options here are the queue's defaults; a send may override them.
 */
export const QUEUES = {
  /** Hard-deletes rows below a soft-deleted workspace, project, table or column. */
  purge: { name: 'purge', options: { retryLimit: 10, retryDelay: 5, retryBackoff: true } },
  /** Domain events (SPEC §8), sent in the transaction of the change; fanned out to webhooks by a worker. */
  events: { name: 'events', options: { retryLimit: 20, retryDelay: 2, retryBackoff: true } },
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]['name'];

export interface PurgeJob {
  kind: 'workspace' | 'project' | 'table' | 'column';
  id: string;
}
