import type { SqlQuery } from '../../../db/sql.js';
import { CONTENTS_COLUMNS } from '../rows/row.js';

/*
 * Drafts of published rows (docs/contents.md#drafts-of-published-rows): `contents.draft` holds a row's pending changes keyed by
 * column id (drafts.ts), null when there are none. Nothing else reads the column.
 */

/** A row's pending changes, or null. */
export const draftOf = (id: string): SqlQuery => ({
  text: 'select draft from contents where id = $1',
  values: [id],
});

/** The pending drafts of rows among `ids` that have one (a release publishing many at once). */
export const draftsOf = (ids: string[]): SqlQuery => ({
  text: 'select id, draft from contents where id = any($1::uuid[]) and draft is not null',
  values: [ids],
});

/** Sets a row's pending changes, leaving its live values alone; returns the row. */
export const setDraft = (id: string, draft: Record<string, unknown>): SqlQuery => ({
  text: `update contents set draft = $2 where id = $1 returning ${CONTENTS_COLUMNS}`,
  values: [id, draft],
});

/** Drops a row's pending changes; no row when it had none. */
export const discardDraft = (id: string): SqlQuery => ({
  text: 'update contents set draft = null where id = $1 and draft is not null returning id',
  values: [id],
});
