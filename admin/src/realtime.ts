import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useClient } from './session.js';

/**
 * Keeps what the console shows current while other people (or programs) write: one event
 * subscription per open project (docs/realtime.md#typed-client, `events.subscribe` over SSE through the typed client),
 * and each event refreshes the queries it can change. A contents event refreshes that table's
 * lists and rows; a table event, the tables and their columns; a file event, the files. After a
 * `reset` (the feed lost track), everything of the project is read again, and so it is when the
 * stream starts: a write between a page's first read and the stream's opening has no event the
 * page will see. (A reconnect resumes after the last event, so it loses nothing.)
 */
export function useProjectEvents(projectId: string | undefined): void {
  const client = useClient();
  const queries = useQueryClient();
  useEffect(() => {
    if (!projectId) return;
    const subscription = client.events.subscribe.subscribe(
      { projectId },
      {
        onStarted() {
          void queries.invalidateQueries({ queryKey: ['project', projectId] });
        },
        onData(item) {
          if (!('id' in item)) {
            void queries.invalidateQueries({ queryKey: ['project', projectId] });
            return;
          }
          const event = item.data;
          const data = event.data as { tableId?: string };
          const contents = data.tableId ? ['project', projectId, 'contents', data.tableId] : ['project', projectId, 'contents'];
          if (event.type.startsWith('contents.')) void queries.invalidateQueries({ queryKey: contents });
          else if (event.type.startsWith('tables.')) void queries.invalidateQueries({ queryKey: ['project', projectId, 'tables'] });
          else if (event.type.startsWith('files.')) void queries.invalidateQueries({ queryKey: ['project', projectId, 'files'] });
        },
      },
    );
    return () => subscription.unsubscribe();
  }, [client, queries, projectId]);
}
