/** One server-sent event as a client parses it (text/event-stream); comments kept apart. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The JSON error body when the stream did not start. */
  error: unknown;
  events: SseEvent[];
  /** Comment lines (`: ping`), without the colon. */
  comments: string[];
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  /** Waits until `count` events (matching `where`) have arrived, and answers them. */
  take(count: number, timeoutMs?: number, where?: (event: SseEvent) => boolean): Promise<SseEvent[]>;
  close(): void;
}

/**
 * Opens `url` as an EventSource would (GET, `Accept: text/event-stream`, optional
 * `Last-Event-ID`) and parses the stream as it arrives, per the HTML living standard.
 */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  let error: unknown = null;
  let ended: Promise<void>;
  if (res.headers.get('content-type')?.startsWith('text/event-stream') && res.body) {
    const body = res.body;
    ended = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      let current: { id?: string; event?: string; data: string[] } = { data: [] };
      try {
        for await (const chunk of body) {
          buffer += decoder.decode(chunk as Uint8Array, { stream: true });
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).replace(/\r$/, '');
            buffer = buffer.slice(newline + 1);
            if (line === '') {
              if (current.data.length > 0 || current.event) events.push({ id: current.id, event: current.event ?? 'message', data: current.data.join('\n') });
              current = { data: [] };
              notify();
            } else if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
              notify();
            } else {
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id') current.id = value;
              else if (field === 'event') current.event = value;
              else if (field === 'data') current.data.push(value);
            }
          }
        }
      } catch {
        // closed by us
      }
      notify();
    })();
  } else {
    const text = await res.text();
    error = text ? JSON.parse(text) : null;
    ended = Promise.resolve();
  }
  let done = false;
  void ended.then(() => {
    done = true;
    notify();
  });
  return {
    status: res.status,
    headers: res.headers,
    error,
    events,
    comments,
    ended,
    take: (count, timeoutMs = 10_000, where = () => true) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const matching = events.filter(where);
          if (matching.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching.slice(0, count));
          } else if (done) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the stream ended after ${matching.length} of ${count} events: ${JSON.stringify(events)}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${events.filter(where).length} of ${count} events within ${timeoutMs} ms: ${JSON.stringify(events.map((e) => e.event))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => abort.abort(),
  };
}
