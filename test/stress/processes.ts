export { freePort } from '../helpers/child.js';
export { startReceiver, until, WEBHOOK_ENV, type Receiver } from '../webhooks/fixture.js';
