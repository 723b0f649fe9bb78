export { builtArgs, freePort, root } from '../helpers/child.js';
export { startReceiver, WEBHOOK_ENV, type Receiver } from '../webhooks/fixture.js';
