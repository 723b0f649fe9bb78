import type { SqlQuery } from '../../db/sql.js';
import { CONTENTS_COLUMNS } from './contents.row.js';

/**
 * SCHEDULED rows of live tables whose `publishAt` has passed, oldest first, locked; `skip locked`
 * lets several publishers share the work.
 */
export const dueScheduledContents = (batch: number): SqlQuery => ({
  text: `select ${CONTENTS_COLUMNS}, project_id from contents
          where status = 'SCHEDULED' and publish_at <= now()
            and table_id in (select id from content_table where deleted_at is null)
          order by publish_at limit $1 for update skip locked`,
  values: [batch],
});

/** Publishes one scheduled row now; returns it. */
export const publishScheduledContents = (id: string): SqlQuery => ({
  text: `update contents set status = 'PUBLISHED', published_at = now(), publish_at = null, updated_at = now()
          where id = $1 returning ${CONTENTS_COLUMNS}`,
  values: [id],
});
