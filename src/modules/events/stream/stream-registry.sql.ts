import type { SqlQuery } from '../../../db/sql.js';

/* `event_stream`: the open realtime streams per credential, on every API process. */

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
