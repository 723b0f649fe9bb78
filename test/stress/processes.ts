import net from 'node:net';

export { startReceiver, until, WEBHOOK_ENV, type Receiver } from '../webhooks/fixture.js';

/** A TCP port free right now on 127.0.0.1. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
