import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { drainedOrClosed } from '../../src/http/contents-io/contents-io-routes.js';

/** The export's backpressure wait (contents-io-routes.ts) on a real HTTP response. */
describe('drainedOrClosed', () => {
  it('resolves for a response whose client left before the wait began (its close event already fired)', async () => {
    let done: (outcome: string) => void = () => {};
    const waited = new Promise<string>((resolve) => (done = resolve));
    const server = http.createServer((req, res) => {
      res.writeHead(200);
      res.write('first');
      res.once('close', () => {
        // The export was reading its next chunk meanwhile; it waits only now.
        setImmediate(() => {
          const timeout = setTimeout(() => done('still waiting'), 2_000);
          void drainedOrClosed(res).then(() => {
            clearTimeout(timeout);
            done('resolved');
          });
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const req = http.get({ port, host: '127.0.0.1' }, (res) => res.once('data', () => req.destroy()));
      req.on('error', () => {});
      expect(await waited).toBe('resolved');
    } finally {
      server.close();
    }
  });
});
