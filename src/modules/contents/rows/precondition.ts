import { badRequest, preconditionFailed } from '../../../errors/app-error.js';

/*
 * Safe concurrent edits (docs/contents.md#concurrent-edits): a row's `version` is its entity tag.
 * A read of one row answers `ETag: "<id>:<version>"`; a write that sends it back in `If-Match`
 * (or the version as `ifVersion`) is made only if the row is still at that version, checked
 * under the row lock the write takes, else 412 and nothing is written.
 */

/** One entity tag of `If-Match`: `id` null when it names the version only (`"7"`). */
export interface VersionTag {
  id: string | null;
  version: number;
}

/** What a write expects of its row: every condition given must hold. */
export interface VersionCondition {
  /** From `If-Match`: the row matches one of them. */
  tags?: readonly VersionTag[];
  /** From the input's `ifVersion`. */
  version?: number;
}

export const etagOf = (row: { id: string; version: number }) => `"${row.id}:${row.version}"`;
/** The row read with its pending draft applied: weak, since the draft changes under the same version. */
export const draftEtagOf = (row: { id: string; version: number }) => `W/"${row.id}:${row.version}:draft"`;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** `"<id>:<version>"`, `"<id>:<version>:draft"` or `"<version>"`, optionally `W/`-prefixed. */
const TAG = new RegExp(`^(?:W/)?"(?:(${UUID}):)?([1-9][0-9]{0,9})(?::draft)?"$`);

/**
 * `If-Match` as a list of tags; `*` (any current row) asks nothing. A value that is not one of
 * the shapes above is 400: a client that sends a tag of another kind must not get a blind write.
 * The weak prefix is accepted: a version is exact whichever way the tag was handed out.
 */
export function parseIfMatch(header: string): readonly VersionTag[] | null {
  const value = header.trim();
  if (value === '*') return null;
  const tags = value.split(',').map((part) => {
    const match = TAG.exec(part.trim());
    if (!match) throw badRequest('If-Match: expected "<id>:<version>" (the ETag of a read of the row) or "<version>"');
    return { id: match[1]?.toLowerCase() ?? null, version: Number(match[2]) };
  });
  return tags;
}

/** The condition of a write from its `If-Match` header and `ifVersion` input; undefined: last write wins. */
export function versionCondition(ifMatch: string | undefined, ifVersion: number | undefined): VersionCondition | undefined {
  const tags = ifMatch === undefined ? null : parseIfMatch(ifMatch);
  if (tags === null && ifVersion === undefined) return undefined;
  return { ...(tags ? { tags } : {}), ...(ifVersion !== undefined ? { version: ifVersion } : {}) };
}

/** 412 PRECONDITION_FAILED, with the row's current ETag, unless `row` is at the version the write expects. */
export function assertVersion(row: { id: string; version: number }, condition: VersionCondition | undefined): void {
  if (!condition) return;
  const tagged = !condition.tags || condition.tags.some((tag) => tag.version === row.version && (tag.id === null || tag.id === row.id));
  if (tagged && (condition.version === undefined || condition.version === row.version)) return;
  throw preconditionFailed(
    `The row has changed: it is at version ${row.version} now. Read it again (ETag ${etagOf(row)}) and apply your change to that version`,
    etagOf(row),
  );
}
