import type { DomainEvent, EventType } from '../vocabulary.js';

/** What a subscriber receives: the webhook body of docs/webhooks.md#what-a-delivery-looks-like (`sequence`: per row, increasing). */
export interface EventEnvelope {
  id: string;
  type: EventType;
  projectId: string;
  createdAt: string;
  sequence?: number;
  data: object;
}

/** Sent once when the event to resume after is no longer retained: what follows is live. */
export interface StreamReset {
  type: 'reset';
}

const envelopeOf = (event: DomainEvent, data: object): EventEnvelope => ({
  id: event.id,
  type: event.type,
  projectId: event.projectId,
  createdAt: event.createdAt,
  ...(event.sequence === undefined ? {} : { sequence: event.sequence }),
  data,
});

/**
 * What read keys see (docs/realtime.md#who-sees-what): events about PUBLISHED rows only, without
 * `hasDraft`; a row leaving PUBLISHED arrives as `contents.unpublished` with only its id and
 * table. Files and tables are public to read keys. Null: not for read keys.
 */
function publicEnvelope(event: DomainEvent): EventEnvelope | null {
  if (!event.type.startsWith('contents.')) return envelopeOf(event, event.data);
  const row = event.data as { id?: string; status?: string; hasDraft?: boolean };
  if (event.type === 'contents.unpublished') return envelopeOf(event, { id: row.id, tableId: event.tableId });
  if (row.status !== 'PUBLISHED') return null;
  const { hasDraft: _hidden, ...visible } = row;
  return envelopeOf(event, visible);
}

/**
 * One event of the feed at its position, with its two views (every caller's, read keys') built
 * and serialised at most once, however many subscribers receive it.
 */
export class FeedEntry {
  private full?: EventEnvelope;
  private public?: EventEnvelope | null;
  private readonly json = new Map<boolean, string | null>();

  constructor(
    readonly position: number,
    readonly event: DomainEvent,
  ) {}

  get id(): string {
    return this.event.id;
  }

  envelope(publicOnly: boolean): EventEnvelope | null {
    if (!publicOnly) return (this.full ??= envelopeOf(this.event, this.event.data));
    if (this.public === undefined) this.public = publicEnvelope(this.event);
    return this.public;
  }

  /** The envelope as JSON text, or null when the caller may not see the event. */
  serialized(publicOnly: boolean): string | null {
    let text = this.json.get(publicOnly);
    if (text === undefined) {
      const envelope = this.envelope(publicOnly);
      text = envelope && JSON.stringify(envelope);
      this.json.set(publicOnly, text);
    }
    return text;
  }
}
