import type { SqlQuery } from '../../db/sql.js';

/*
 * The realtime feed (docs/realtime.md#how-it-works): `event_feed`, appended to by the outbox relay
 * (jobs/outbox.sql.ts), read by every API process, trimmed by the `event-feed` worker; and
 * `event_stream`, the open streams per credential.
 */

/** The newest position (0 for an empty feed). */
export const feedHead: SqlQuery = { text: 'select coalesce(max(position), 0)::text as position from event_feed', values: [] };

/** Events after `position`, oldest first. */
export const feedAfter = (position: number, limit: number): SqlQuery => ({
  name: 'events.feed.after',
  // Ordered by the column itself: a bare `position` would name the text of the select list.
  text: 'select position::text, payload from event_feed where position > $1 order by event_feed.position limit $2',
  values: [position, limit],
});

/** A project's events after `position`, oldest first (a resuming stream's replay). */
export const projectFeedAfter = (projectId: string, position: number, limit: number): SqlQuery => ({
  text: 'select position::text, payload from event_feed where project_id = $1 and position > $2 order by event_feed.position limit $3',
  values: [projectId, position, limit],
});

/** Where a project's event is in the feed; no row when it is not retained (or not the project's). */
export const feedPositionOf = (projectId: string, eventId: string): SqlQuery => ({
  text: 'select position::text from event_feed where id = $1 and project_id = $2',
  values: [eventId, projectId],
});

/**
 * Deletes events older than `hours` except the newest `keep` of each project (docs/realtime.md#resuming: at
 * least a day or 10,000 events, whichever is more), at most `batch` at a time.
 */
export const trimEventFeed = (hours: number, keep: number, batch: number): SqlQuery => ({
  text: `with old as (
           select project_id, max(position) as newest_old from event_feed
            where created_at < now() - make_interval(hours => $1) group by project_id
         ), bounds as (
           -- beyond_keep: the newest event past the project's newest \`keep\` (null when it has fewer).
           select old.project_id, old.newest_old,
                  (select f.position from event_feed f where f.project_id = old.project_id order by f.position desc offset $2 limit 1) as beyond_keep
             from old
         ), doomed as (
           select f.position from bounds b
             join event_feed f on f.project_id = b.project_id and f.position <= b.newest_old and f.position <= b.beyond_keep
            order by f.position limit $3
         )
         , gone as (delete from event_feed where position in (select position from doomed) returning 1)
         select count(*)::int as deleted from gone`,
  values: [hours, keep, batch],
});

/** Serialises the opening of streams of one credential until the transaction ends. */
export const lockCredentialStreams = (credentialId: string): SqlQuery => ({
  text: 'select pg_advisory_xact_lock(hashtextextended($1, 0))',
  values: [`event-stream:${credentialId}`],
});

/** The credential's open streams on every process (expired rows of dead processes dropped first). */
export const countCredentialStreams = (credentialId: string): SqlQuery => ({
  text: `with gone as (delete from event_stream where credential_id = $1 and expires_at <= now())
         select count(*)::int as open from event_stream where credential_id = $1 and expires_at > now()`,
  values: [credentialId],
});

export const insertStream = (id: string, credentialId: string, ttlSeconds: number): SqlQuery => ({
  text: 'insert into event_stream (id, credential_id, expires_at) values ($1, $2, now() + make_interval(secs => $3))',
  values: [id, credentialId, ttlSeconds],
});

/** Keeps this process's open streams counted. */
export const refreshStreams = (ids: string[], ttlSeconds: number): SqlQuery => ({
  text: 'update event_stream set expires_at = now() + make_interval(secs => $2) where id = any($1::uuid[])',
  values: [ids, ttlSeconds],
});

export const deleteStream = (id: string): SqlQuery => ({ text: 'delete from event_stream where id = $1', values: [id] });
