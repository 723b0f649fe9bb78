import type { Principal } from '../../auth/principal.js';

/** SPEC §13: what a revision records. */
export const REVISION_ACTIONS = ['created', 'updated', 'published', 'unpublished', 'scheduled', 'archived', 'restored', 'draftPublished'] as const;
export type RevisionAction = (typeof REVISION_ACTIONS)[number];

/** Who made a change: an account or an API key. */
export interface Actor {
  type: 'account' | 'apiKey';
  id: string;
}

export const actorOf = (principal: Principal): Actor =>
  principal.kind === 'account' ? { type: 'account', id: principal.accountId } : { type: 'apiKey', id: principal.apiKeyId };
