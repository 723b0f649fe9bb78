/**
 * Every pg-boss queue of the system, one per job kind. The API only sends; workers work them.
 * Options here are the queue's defaults; a send may override them.
 */
export const QUEUES = {
  /** Hard-deletes rows below a soft-deleted workspace, project, table or column. */
  purge: { name: 'purge', options: { retryLimit: 10, retryDelay: 5, retryBackoff: true } },
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]['name'];

export interface PurgeJob {
  kind: 'workspace' | 'project' | 'table' | 'column';
  id: string;
}
