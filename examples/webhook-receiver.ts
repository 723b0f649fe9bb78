/**
 * A webhook receiver: verifies the Standard Webhooks signature of every delivery with the
 * `standardwebhooks` package and logs the event. Run it, then point a webhook at it:
 *
 *   TABULA_WEBHOOK_SECRET=whsec_… PORT=4000 npx tsx examples/webhook-receiver.ts
 *   curl -X POST $API/$P/webhooks -H "Authorization: Bearer $T" -H 'Content-Type: application/json' \
 *     -d '{"url":"https://your-host/hooks/tabula","events":["*"]}'     # its answer holds the secret
 *
 * (A receiver on localhost needs WEBHOOKS_ALLOW_PRIVATE=true on the Tabula side.)
 */
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

interface TabulaEvent {
  id: string;
  type: string;
  projectId: string;
  createdAt: string;
  data: { id?: string } & Record<string, unknown>;
}

/** Larger bodies are refused; a delivery carries one object. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

const secret = process.env.TABULA_WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  process.stderr.write('Set TABULA_WEBHOOK_SECRET to the webhook secret (whsec_…) from the create or rotate-secret answer.\n');
  process.exit(2);
}
const webhook = new Webhook(secret);
// Delivery is at-least-once and retries keep the event id: remember what was handled.
const handled = new Set<string>();

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/hooks/tabula') {
    res.writeHead(404).end();
    return;
  }
  readBody(req).then(
    (body) => {
      let event: TabulaEvent;
      try {
        // The signature covers the raw body: verify before parsing. Also refuses stale timestamps (5 min).
        event = webhook.verify(body, {
          'webhook-id': String(req.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        }) as TabulaEvent;
      } catch (error) {
        console.log(`rejected: ${(error as Error).message}`);
        res.writeHead(400).end();
        return;
      }
      if (handled.has(event.id)) {
        console.log(`duplicate ${event.type} ${event.id}`);
      } else {
        handled.add(event.id);
        console.log(`verified ${event.type} ${event.id} project=${event.projectId} data.id=${event.data.id ?? '-'}`);
      }
      // Answer quickly (Tabula waits 10 s at most); slow work belongs after the answer.
      res.writeHead(204).end();
    },
    () => {
      res.writeHead(413).end();
    },
  );
});

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const port = Number(process.env.PORT ?? 4000);
const host = process.env.HOST ?? '127.0.0.1';
server.listen(port, host, () => {
  const { port: actual } = server.address() as { port: number };
  console.log(`listening on http://${host}:${actual}/hooks/tabula`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
}
