export { freePort } from '../helpers/child.js';
export { startReceiver, WEBHOOK_ENV, type Receiver } from '../webhooks/fixture.js';
