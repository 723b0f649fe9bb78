import { sqlOn } from '../../../db/sql.js';
import type { RelaySubscriber } from '../outbox.js';
import { appendToEventFeed } from './feed.sql.js';

/** The realtime feed as a subscriber of the relay: it takes every event, in the relay's order. */
export const appendToFeed: RelaySubscriber = async (client, events) => {
  await sqlOn(client)(appendToEventFeed(events.map((e) => e.id), events.map((e) => e.projectId), events.map((e) => JSON.stringify(e))));
};
