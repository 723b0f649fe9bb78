import type { RouterOutputs } from 'tabula/client';
import { useApi } from '../api.js';
import { releasesKeys } from './keys.js';

export type Release = RouterOutputs['releases']['list']['list'][number];
export type ReleaseWithItems = RouterOutputs['releases']['get'];

/** One page of the project's releases, newest first. */
export function useReleases(projectId: string, page = 1, size = 50) {
  return useApi(releasesKeys.list(projectId, page), (client) => client.releases.list.query({ projectId, page, size }), { keepPrevious: true });
}

/** A release with its items and whether each would pass now. */
export function useRelease(projectId: string, releaseId: string) {
  return useApi(releasesKeys.one(projectId, releaseId), (client) => client.releases.get.query({ projectId, releaseId }));
}
