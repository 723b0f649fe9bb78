import type pg from 'pg';
import type { Sql } from '../../../db/sql.js';
import { emitEvents } from '../../events/outbox.js';
import { newEvent } from '../../events/vocabulary.js';
import { outboxOfClient } from '../../../jobs/outbox.js';
import type { TableDefinitions } from '../../tables/table-definitions.js';
import { previousFields, toContentsOutput, type ContentsRow } from './row.js';
import { dueScheduledContents, publishScheduledContents } from './rows.sql.js';
import { recordChange } from './counts.js';

/**
 * Publishes up to `batch` SCHEDULED rows whose `publishAt` has passed, in the caller's
 * transaction on `client` (`sql` runs on it): each row with its count change and its
 * `contents.published` event (docs/contents.md#statuses). A schedule that was cancelled (back to DRAFT) or moved
 * needs nothing cancelled: the row simply is not due. Answers how many rows it published.
 */
export async function publishDueContents(sql: Sql, client: pg.PoolClient, tables: TableDefinitions, batch: number): Promise<number> {
  const due = await sql<ContentsRow & { project_id: string }>(dueScheduledContents(batch));
  const publishedPerTable = new Map<string, number>();
  for (const row of due) {
    const [published] = await sql<ContentsRow>(publishScheduledContents(row.id));
    publishedPerTable.set(row.table_id, (publishedPerTable.get(row.table_id) ?? 0) + 1);
    const table = await tables.get(row.project_id, row.table_id);
    const output = table ? toContentsOutput(table, published) : null;
    const event = newEvent('contents.published', row.project_id, row.table_id, output ?? published);
    // What the publish replaced (SCHEDULED, no publishedAt): a stream tells from it who the row leaves.
    if (table && output) event.previous = previousFields(toContentsOutput(table, row), output);
    await emitEvents(outboxOfClient(client), [event]);
  }
  // Once per table, in table order: counter rows are locked in one order by every writer.
  for (const tableId of [...publishedPerTable.keys()].sort()) {
    await recordChange(sql, tableId, 'SCHEDULED', 'PUBLISHED', publishedPerTable.get(tableId));
  }
  return due.length;
}
