import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { CredentialResolver } from './credentials.js';
import { authorizeProject, type AccessDeps, type ProjectAccess } from './project-access.js';
import type { Orm } from '../db/orm.js';
import type { StreamOwner } from '../modules/events/stream/open-stream.js';

/**
 * What a recheck of a stream's access depends on: its credential (the Authorization header),
 * where it came from (allowed hosts) and its project. Streams that share them share a recheck.
 */
const recheckKeyOf = (headers: IncomingHttpHeaders, projectId: string): string =>
  createHash('sha256')
    .update([headers.authorization, headers.origin, headers.referer, projectId].map((v) => String(v ?? '')).join('\n'))
    .digest('hex');

/**
 * The owner of a realtime stream opened with `access` (checked at `read` on the stream's first
 * request): it counts against its API key or account token, and its recheck checks again, as on
 * that request, that the credential may read the project — a deleted, deactivated, expired or
 * rotated-out credential, or a lost membership, throws (docs/realtime.md#who-sees-what).
 */
export function streamOwner(deps: AccessDeps & { credentials: CredentialResolver; orm: Orm }, access: ProjectAccess, headers: IncomingHttpHeaders): StreamOwner {
  const { principal, project } = access;
  if (!principal) throw new Error('a stream belongs to a credential');
  return {
    credentialId: principal.kind === 'apiKey' ? principal.apiKeyId : principal.tokenId,
    recheckKey: recheckKeyOf(headers, project.id),
    recheck: async () => {
      const current = await deps.credentials.resolve(headers.authorization);
      return authorizeProject(deps, deps.orm.em.fork(), current, headers, project.id, 'read');
    },
  };
}
