import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { contentsKeys } from './contents/keys.js';
import { fileKeys } from './files/keys.js';
import { projectKeys } from './projects/keys.js';
import { useClient } from './session/session.js';
import { tableKeys } from './tables/keys.js';

/**
 * Keeps what the console shows current while other people (or programs) write: one event
 * subscription per open project (docs/realtime.md, `events.subscribe` over SSE through the typed
 * client), and each event refreshes the queries it can change, by the keys of the domains'
 * factories (docs/console.md#data-and-query-keys). A contents event refreshes that table's lists
 * and rows; a table event, the tables and their columns; a file event, the files. After a `reset`
 * (the feed lost track), everything of the project is read again, and so it is when the stream
 * starts: a write between a page's first read and the stream's opening has no event the page will
 * see. (A reconnect resumes after the last event, so it loses nothing.)
 */
const COALESCE_MS = 250;

export function useProjectEvents(projectId: string | undefined): void {
  const client = useClient();
  const queries = useQueryClient();
  useEffect(() => {
    if (!projectId) return;
    // A burst of events (a bulk action, an import: hundreds a second) refreshes each key once per
    // COALESCE_MS, not once per event: each refresh would cancel the one in flight and ask again.
    const due = new Map<string, readonly unknown[]>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = (queryKey: readonly unknown[]) => {
      due.set(JSON.stringify(queryKey), queryKey);
      timer ??= setTimeout(() => {
        timer = undefined;
        const keys = [...due.values()];
        due.clear();
        for (const key of keys) void queries.invalidateQueries({ queryKey: key });
      }, COALESCE_MS);
    };
    const subscription = client.events.subscribe.subscribe(
      { projectId },
      {
        onStarted() {
          void queries.invalidateQueries({ queryKey: projectKeys.all(projectId) });
        },
        onData(item) {
          if (!('id' in item)) {
            void queries.invalidateQueries({ queryKey: projectKeys.all(projectId) });
            return;
          }
          const event = item.data;
          const data = event.data as { tableId?: string };
          const contents = data.tableId ? contentsKeys.table(projectId, data.tableId) : contentsKeys.all(projectId);
          if (event.type.startsWith('contents.')) refresh(contents);
          else if (event.type.startsWith('tables.')) refresh(tableKeys.all(projectId));
          else if (event.type.startsWith('files.')) refresh(fileKeys.all(projectId));
        },
      },
    );
    return () => {
      clearTimeout(timer);
      subscription.unsubscribe();
    };
  }, [client, queries, projectId]);
}
