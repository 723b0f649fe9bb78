import { transaction } from '../../../db/sql.js';
import { AppError } from '../../../errors/app-error.js';
import { outboxOfClient } from '../../../jobs/outbox.js';
import { emitEvents } from '../../events/outbox.js';
import type { DomainEvent } from '../../events/vocabulary.js';
import type { RowScope } from '../../tables/table-def.js';
import { CountChanges } from './counts.js';
import type { SetStatusInput } from './rows.schema.js';
import { visibleIds } from './rows.sql.js';
import { updateMany } from './update-many.js';
import { lockRows, type WriteScope } from './write.js';

/*
 * Many rows of one table given one status (docs/contents.md#bulk-status): publish, unpublish or
 * archive a selection in one request and one transaction. Each row is checked as its single
 * update (`PUT .../contents/{id}` with `status`) checks it (updateMany): found and seen by the
 * caller, the status transition, the caller's rules; the rows that pass are written by one
 * statement with their revisions, the others answered with the error their single update would
 * give. The number of statements does not grow with the number of rows.
 */

export interface StatusResult {
  id: string;
  ok: boolean;
  code?: string;
  message?: string;
}

export async function setStatusOfMany(scope: WriteScope, writable: RowScope | undefined, input: Pick<SetStatusInput, 'ids' | 'status'>): Promise<StatusResult[]> {
  const ids = input.ids.map((id) => id.toLowerCase());
  return transaction(scope.pool, async (sql, client) => {
    // Every row locked and read at once, in id order; a row of another table, or one the caller
    // does not see (its read rules), is not found, as for its single update.
    const locked = await lockRows(sql, ids);
    if (writable) {
      const seen = await sql<{ id: string }>(visibleIds(scope.table.id, ids, writable.sql));
      const visible = new Set(seen.map((row) => row.id));
      for (const id of [...locked.keys()]) if (!visible.has(id)) locked.delete(id);
    }
    const counts = new CountChanges();
    const events: DomainEvent[] = [];
    const updates = ids.map((contentsId) => ({ tableId: scope.table.id, contentsId, input: { status: input.status }, source: 'body' as const }));
    const failures = await updateMany(async () => scope, { sql, client, counts, events, locked }, updates, undefined, { partial: true });
    await counts.apply(sql);
    await emitEvents(outboxOfClient(client), events);
    return ids.map((id, i): StatusResult => {
      const failure = failures.get(i);
      if (failure === undefined) return { id, ok: true };
      if (!(failure instanceof AppError)) throw failure;
      return { id, ok: false, code: failure.errorCode, message: failure.message };
    });
  });
}
