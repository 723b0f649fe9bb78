import type pg from 'pg';
import type { Sql } from '../../../db/sql.js';
import { emitEvents } from '../../events/outbox.js';
import { newEvent } from '../../events/vocabulary.js';
import { outboxOfClient } from '../../../jobs/outbox.js';
import type { TableDefinitions } from '../../tables/table-definitions.js';
import { previousFields, toContentsOutput, type ContentsRow } from './row.js';
import { dueScheduledContents, msUntilNextScheduled, publishScheduledContents } from './rows.sql.js';
import { CountChanges } from './counts.js';

/**
 * Publishes up to `batch` SCHEDULED rows whose `publishAt` has passed, in the caller's
 * transaction on `client` (`sql` runs on it): each row with its count change and its
 * `contents.published` event (docs/contents.md#statuses). A schedule that was cancelled (back to DRAFT) or moved
 * needs nothing cancelled: the row simply is not due. Answers how many rows it published. The
 * count changes go to `counts` when given (the caller applies them with the rest of its
 * transaction's), else are applied here.
 */
export async function publishDueContents(sql: Sql, client: pg.PoolClient, tables: TableDefinitions, batch: number, counts?: CountChanges): Promise<number> {
  const due = await sql<ContentsRow & { project_id: string }>(dueScheduledContents(batch));
  const changes = counts ?? new CountChanges();
  for (const row of due) {
    const [published] = await sql<ContentsRow>(publishScheduledContents(row.id));
    changes.add(row.table_id, 'SCHEDULED', 'PUBLISHED');
    const table = await tables.get(row.project_id, row.table_id);
    const output = table ? toContentsOutput(table, published) : null;
    const event = newEvent('contents.published', row.project_id, row.table_id, output ?? published);
    // What the publish replaced (SCHEDULED, no publishedAt): a stream tells from it who the row leaves.
    if (table && output) event.previous = previousFields(toContentsOutput(table, row), output);
    await emitEvents(outboxOfClient(client), [event]);
  }
  // Once per table, in table order: counter rows are locked in one order by every writer.
  if (!counts) await changes.apply(sql);
  return due.length;
}

/** In how many ms the next SCHEDULED row not due yet comes due; null when none is. */
export async function nextScheduledContentsIn(sql: Sql): Promise<number | null> {
  const [row] = await sql<{ ms: number | null }>(msUntilNextScheduled());
  return row.ms;
}
