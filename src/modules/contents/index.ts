/**
 * What the rest of the server uses of the contents module: the value rules other modules share,
 * the list cache the server creates, imports and exports (the HTTP routes and the CLI), the
 * workers' jobs, and the scopes of reads and writes that auth/project-access.ts hands out. The rooms behind it: rows/ (reads, lists and writes of rows), drafts/,
 * revisions/, references/ (onDelete and referrers), expand/, import/, export/ and list-cache/.
 * In a room, `<room>.ts` is its service, `<room>.router.ts`, `<room>.schema.ts` and
 * `<room>.sql.ts` its tRPC procedures, input and output schemas and statements, and every other
 * file is named for what it holds (rows/ has a file per operation instead of one service). The
 * routers are imported from their rooms by src/trpc/router.ts.
 */
export { checkValue, SLUG } from './rows/value-rules.js';
export { slugify, storedDefault } from './rows/validate.js';
export { nextScheduledContentsIn, publishDueContents } from './rows/schedule.js';
export { visibleData } from './rows/row.js';
export type { Actor } from './revisions/actions.js';
export type { ListScope } from './rows/list.js';
export type { WriteScope, PlannedChange, UpdateSource } from './rows/write.js';
/** Releases apply each item as a single write, in the release's transaction (docs/releases.md). */
export { updateContents, findRow, lockRows } from './rows/write.js';
/** A release publishes all its items at once: checked as single writes, written together. */
export { updateMany, UpdateFailure } from './rows/update-many.js';
export { CountChanges } from './rows/counts.js';
export type { UpdateContentsInput } from './rows/rows.schema.js';
export type { ContentsRow } from './rows/row.js';
export { purgeRevisions } from './revisions/revisions.js';
export { ListCache, detectTextOrder } from './list-cache/list-cache.js';
export { currentXmin, deleteSeenChanges } from './list-cache/change-log.js';
export { CHANGES_RETENTION_MS } from './list-cache/table-sync.js';
export { importContents } from './import/import.js';
export { csvLines, ndjsonLines, type ImportLine } from './import/import-lines.js';
export { prepareExport, type ExportFormat } from './export/export.js';
