import type { ErrorDetail } from '../../../errors/app-error.js';
import { invalidTransition } from '../../../errors/app-error.js';
import type { ContentStatus } from '../../tables/table.entity.js';

/** The allowed status changes (docs/contents.md#statuses). Staying in the same status is always allowed. */
const TRANSITIONS: Record<ContentStatus, readonly ContentStatus[]> = {
  DRAFT: ['PUBLISHED', 'SCHEDULED', 'ARCHIVED'],
  SCHEDULED: ['DRAFT', 'PUBLISHED'],
  PUBLISHED: ['DRAFT', 'ARCHIVED'],
  ARCHIVED: ['DRAFT'],
};

export function assertTransition(from: ContentStatus, to: ContentStatus): void {
  if (from !== to && !TRANSITIONS[from].includes(to)) {
    throw invalidTransition(`status cannot change from ${from} to ${to} (allowed: ${TRANSITIONS[from].join(', ')})`);
  }
}

export interface StatusPlan {
  status: ContentStatus;
  publishAt: Date | null;
  /** True when this write publishes the row (sets publishedAt, fires contents.published). */
  publishes: boolean;
  /** True when this write takes a published row out of public view. */
  unpublishes: boolean;
}

/**
 * The status and publishAt a write ends with, plus any 422 detail about publishAt (docs/contents.md#statuses:
 * SCHEDULED needs a future publishAt; publishAt means nothing for other statuses). The
 * transition itself is checked separately, after validation (422 before 409).
 */
export function planStatus(
  current: { status: ContentStatus; publishAt: Date | null } | null,
  requested: { status?: ContentStatus; publishAt?: string | null },
  defaultStatus: ContentStatus,
  details: ErrorDetail[],
): StatusPlan {
  const status = requested.status ?? current?.status ?? defaultStatus;
  let publishAt: Date | null = null;
  if (status === 'SCHEDULED') {
    const given = requested.publishAt === undefined ? current?.publishAt ?? null : requested.publishAt ? new Date(requested.publishAt) : null;
    if (!given) details.push({ field: 'publishAt', message: 'is required for SCHEDULED' });
    else if (given.getTime() <= Date.now()) details.push({ field: 'publishAt', message: 'must be in the future' });
    else publishAt = given;
  } else if (requested.publishAt) {
    details.push({ field: 'publishAt', message: 'only applies to SCHEDULED contents' });
  }
  const wasPublished = current?.status === 'PUBLISHED';
  return {
    status,
    publishAt,
    publishes: status === 'PUBLISHED' && !wasPublished,
    unpublishes: wasPublished && status !== 'PUBLISHED',
  };
}
