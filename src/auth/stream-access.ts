import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { CredentialResolver } from './credentials.js';
import { authorizeProject, type AccessDeps, type ProjectAccess } from './project-access.js';
import type { Orm } from '../db/orm.js';
import type { EventStreamInput } from '../modules/events/events.schema.js';
import { openStream, parseStreamFilter, type OpenedStream, type StreamOwner } from '../modules/events/stream/open-stream.js';
import type { EventFeed } from '../modules/events/feed/feed-reader.js';
import type { EventStreams } from '../modules/events/stream/stream-registry.js';
import { PolicyAudience } from './stream-audience.js';

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
 * rotated-out credential, or a lost membership, throws (docs/realtime.md#who-sees-what). What it
 * sees is its policy's (stream-audience.ts), taken from the access each recheck answers: a
 * changed role applies to the open stream within a recheck (docs/roles.md#events).
 */
export function streamOwner(deps: AccessDeps & { credentials: CredentialResolver; orm: Orm }, access: ProjectAccess, headers: IncomingHttpHeaders): StreamOwner {
  const { principal, project } = access;
  if (!principal) throw new Error('a stream belongs to a credential');
  const audience = new PolicyAudience(access);
  return {
    credentialId: principal.kind === 'apiKey' ? principal.apiKeyId : principal.tokenId,
    recheckKey: recheckKeyOf(headers, project.id),
    recheck: async () => {
      const current = await deps.credentials.resolve(headers.authorization);
      return authorizeProject(deps, deps.orm.em.fork(), current, headers, project.id, 'read');
    },
    audience,
    renewed: (checked) => audience.renew(checked),
  };
}

type StreamDeps = Parameters<typeof streamOwner>[0] & { feed: EventFeed; streams: EventStreams };

/**
 * The realtime stream of a caller whose `read` access was checked, as both surfaces open it (the
 * SSE route and the `events.subscribe` procedure): its filter read against the project's tables,
 * what it shows the access's policy, its owner the credential.
 */
export async function openAccessStream(deps: StreamDeps, access: ProjectAccess, headers: IncomingHttpHeaders, input: EventStreamInput, signal: AbortSignal): Promise<OpenedStream> {
  const filter = await parseStreamFilter(input, access.tables);
  const owner = streamOwner(deps, access, headers);
  return openStream(deps, { owner, projectId: access.project.id, filter, lastEventId: input.lastEventId }, signal);
}
