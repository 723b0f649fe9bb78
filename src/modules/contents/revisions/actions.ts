import type { ContentStatus } from '../../tables/table.entity.js';

/** What a revision records (docs/contents.md#revisions). */
export const REVISION_ACTIONS = ['created', 'updated', 'published', 'unpublished', 'scheduled', 'archived', 'restored', 'draftPublished'] as const;
export type RevisionAction = (typeof REVISION_ACTIONS)[number];

/** Who made a change: an account or an API key. */
export interface Actor {
  type: 'account' | 'apiKey';
  id: string;
}

/**
 * The action of an update from `from` to `to`: a status change names where the row went
 * (leaving PUBLISHED for DRAFT unpublishes it), anything else is `updated`.
 */
export function updateAction(from: ContentStatus, to: ContentStatus): RevisionAction {
  if (from === to) return 'updated';
  switch (to) {
    case 'PUBLISHED':
      return 'published';
    case 'SCHEDULED':
      return 'scheduled';
    case 'ARCHIVED':
      return 'archived';
    default:
      return from === 'PUBLISHED' ? 'unpublished' : 'updated';
  }
}
