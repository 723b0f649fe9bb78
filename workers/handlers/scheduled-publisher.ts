import type pg from 'pg';
import { transaction } from '../../src/db/sql.js';
import { emitEvents, newEvent, outboxOfClient } from '../../src/jobs/outbox.js';
import { CONTENTS_COLUMNS, toContentsOutput, type ContentsRow } from '../../src/modules/contents/contents.row.js';
import { recordChange } from '../../src/modules/contents/counts.js';
import type { TableDefinitions } from '../../src/modules/tables/table-definitions.js';
import type { Logger } from '../../src/shared/logger.js';
import { startLoop } from '../loop.js';

/** Rows published per transaction. */
const BATCH = 100;
/** How often the due rows are looked for: SPEC §7 asks for publication within 5 s. */
const INTERVAL_MS = 1000;

/**
 * SCHEDULED contents become PUBLISHED once their `publishAt` has passed, firing
 * `contents.published` (SPEC §7/§8). The publisher reads the rows themselves (an index on
 * `publish_at` of SCHEDULED rows), so a schedule that was cancelled (back to DRAFT) or moved
 * needs nothing cancelled: the row simply is not due. `skip locked` lets several workers share
 * the work, and each row is published in the same transaction as its count change and event.
 */
export function startScheduledPublisher(pool: pg.Pool, tables: TableDefinitions, logger: Logger): { stop(): Promise<void> } {
  const publishDue = () =>
    transaction(pool, async (sql, client) => {
      const due = await sql<ContentsRow & { project_id: string }>({
        text: `select ${CONTENTS_COLUMNS}, project_id from contents
                where status = 'SCHEDULED' and publish_at <= now()
                  and table_id in (select id from content_table where deleted_at is null)
                order by publish_at limit $1 for update skip locked`,
        values: [BATCH],
      });
      const publishedPerTable = new Map<string, number>();
      for (const row of due) {
        const [published] = await sql<ContentsRow>({
          text: `update contents set status = 'PUBLISHED', published_at = now(), publish_at = null, updated_at = now()
                  where id = $1 returning ${CONTENTS_COLUMNS}`,
          values: [row.id],
        });
        publishedPerTable.set(row.table_id, (publishedPerTable.get(row.table_id) ?? 0) + 1);
        const table = await tables.get(row.project_id, row.table_id);
        const data = table ? toContentsOutput(table, published) : published;
        await emitEvents(outboxOfClient(client), [newEvent('contents.published', row.project_id, row.table_id, data)]);
      }
      // Once per table, in table order: counter rows are locked in one order by every writer.
      for (const tableId of [...publishedPerTable.keys()].sort()) {
        await recordChange(sql, tableId, 'SCHEDULED', 'PUBLISHED', publishedPerTable.get(tableId));
      }
      if (due.length > 0) logger.info({ published: due.length }, 'published scheduled contents');
      return { full: due.length === BATCH };
    });
  return startLoop(publishDue, INTERVAL_MS, logger);
}
