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

/**
 * How one kind of subscriber receives an event (docs/realtime.md#who-sees-what): its type and its
 * data. Subscribers whose lenses have the same `key` receive the same envelope of an event, which
 * is therefore built and serialised once for all of them.
 */
export interface EventLens {
  key: string;
  show(event: DomainEvent): { type: EventType; data: object };
}

/** The event as it was recorded: every subscriber that sees everything of it. */
export const AS_RECORDED: EventLens = { key: 'recorded', show: (event) => event };

/**
 * A contents row that left the subscriber's view (unpublished for read keys, moved out of a role's
 * `where`): `contents.unpublished` with only `{ id, tableId }`, whatever the event was.
 */
export const LEFT_VIEW: EventLens = {
  key: 'left',
  show: (event) => ({ type: 'contents.unpublished', data: { id: (event.data as { id?: string }).id, tableId: event.tableId } }),
};

/**
 * One event of the feed at its position, with the envelopes subscribers receive of it built and
 * serialised at most once per lens, however many subscribers receive it.
 */
export class FeedEntry {
  private readonly envelopes = new Map<string, EventEnvelope>();
  private readonly json = new Map<string, string>();

  constructor(
    readonly position: number,
    readonly event: DomainEvent,
  ) {}

  get id(): string {
    return this.event.id;
  }

  envelope(lens: EventLens): EventEnvelope {
    let envelope = this.envelopes.get(lens.key);
    if (!envelope) {
      const { event } = this;
      const { type, data } = lens.show(event);
      envelope = {
        id: event.id,
        type,
        projectId: event.projectId,
        createdAt: event.createdAt,
        ...(event.sequence === undefined ? {} : { sequence: event.sequence }),
        data,
      };
      this.envelopes.set(lens.key, envelope);
    }
    return envelope;
  }

  /** The envelope as JSON text. */
  serialized(lens: EventLens): string {
    let text = this.json.get(lens.key);
    if (text === undefined) this.json.set(lens.key, (text = JSON.stringify(this.envelope(lens))));
    return text;
  }
}
