import { z } from 'zod';
import { isoDate, pathId } from '../../shared/schemas.js';
import { listOf, pageParams } from '../../shared/pagination.js';
import { RELEASE_ACTIONS } from './releases.sql.js';

/* The wire shapes of releases (docs/releases.md). */

const projectPath = { projectId: pathId('Project id') };
const releasePath = { ...projectPath, releaseId: pathId('Release id') };

const problem = z.object({ code: z.string(), message: z.string() });

export const releaseItemOutput = z.object({
  id: z.uuid(),
  tableId: z.uuid(),
  contentsId: z.uuid(),
  action: z.enum(RELEASE_ACTIONS),
  createdAt: isoDate,
  /** The row as it is now: null once deleted. */
  current: z.object({ status: z.string(), version: z.number().int(), hasDraft: z.boolean() }).nullable().describe('The row as it is now (null: deleted)'),
  wouldPass: z.boolean().describe('Whether the item would be applied if the release were published now'),
  problem: problem.optional().describe('Why it would not: the error publishing would answer'),
});

export const releaseOutput = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(['open', 'published']),
  publishAt: isoDate.nullable(),
  publishedAt: isoDate.nullable(),
  failure: problem.nullable().describe('Why the scheduled publish failed (the release stays open, unscheduled)'),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type ReleaseOutput = z.infer<typeof releaseOutput>;

export const releaseWithItemsOutput = releaseOutput.extend({ items: z.array(releaseItemOutput) });
export const releaseListOutput = listOf(releaseOutput);

export const createReleaseInput = z.object({
  ...projectPath,
  name: z.string().min(1).max(200),
  publishAt: z.iso.datetime({ offset: true }).nullable().optional().describe('Publish the release then (ISO-8601); absent: only on request'),
});
export type CreateReleaseInput = z.infer<typeof createReleaseInput>;

export const updateReleaseInput = z.object({
  ...releasePath,
  name: z.string().min(1).max(200).optional(),
  publishAt: z.iso.datetime({ offset: true }).nullable().optional().describe('Publish the release then (ISO-8601); null: unscheduled'),
});
export type UpdateReleaseInput = z.infer<typeof updateReleaseInput>;

export const listReleasesInput = z.object({ ...projectPath, ...pageParams });
export const releaseIdInput = z.object(releasePath);

export const addItemInput = z.object({
  ...releasePath,
  tableId: z.string().min(1).max(200).describe('Table id or key'),
  contentsId: z.string().min(1).max(500).describe('Row id or slug'),
  action: z.enum(RELEASE_ACTIONS),
});
export type AddItemInput = z.infer<typeof addItemInput>;

export const itemIdInput = z.object({ ...releasePath, itemId: pathId('Release item id') });
