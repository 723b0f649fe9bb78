import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startBoss } from '../src/jobs/boss.js';
import { QUEUES } from '../src/jobs/queues.js';
import { RequestLogBuffer } from '../src/modules/logs/log-buffer.js';
import { logJob } from '../src/modules/logs/log-wire.js';
import { createLogger } from '../src/shared/logger.js';
import { parentOf, TICK_MICROS, treeTicks } from './cpu.js';
import type { Fixture } from './setup.js';

export interface LoggingPipelineCost {
  entriesPerSecond: number;
  /** CPU per logged request, in µs: building the entry, the buffer, encoding and the hand-over. */
  apiMicros: number;
  /** PostgreSQL (queue, segment insert, rollups, background work), or null if not on this machine. */
  postgresMicros: number | null;
  /** The log-ingest and rollup worker process. */
  workerMicros: number | null;
}

/**
 * What request logging costs, stage by stage, without the noise of a throughput comparison:
 * entries shaped like Q1's are pushed into a RequestLogBuffer in this process at a fixed rate
 * (as the API would log them), handed to the queue, and ingested by a worker; the CPU time of
 * this process, of PostgreSQL (every process of the server) and of the worker is taken over the
 * run, less the same processes' CPU over an idle stretch of the same length.
 */
export async function measureLoggingPipeline(options: {
  databaseUrl: string;
  fixture: Fixture;
  worker: { pid?: number };
  rate: number;
  seconds: number;
}): Promise<LoggingPipelineCost> {
  const logger = createLogger('warn');
  const boss = await startBoss(options.databaseUrl, logger, 'api');
  const buffer = new RequestLogBuffer(async (segments) => void (await boss.send(QUEUES.requestLogs.name, logJob(segments))), logger);
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    // The server's postmaster: the parent of its checkpointer (visible only when it runs here).
    const { rows } = await client.query<{ pid: number }>(`select pid from pg_stat_activity where backend_type = 'checkpointer'`);
    const postmaster = rows[0] ? await parentOf(rows[0].pid) : null;
    const { projectId, tableId } = options.fixture;
    const keyId = randomUUID();
    // Distinct request ids and paths made up front, so that the driver's own cost of making
    // them is not counted; each entry object is still built at its push, as the API builds it.
    const requestIds = Array.from({ length: 4096 }, () => randomUUID());
    const paths = Array.from({ length: 4096 }, () => `/v1/${projectId}/tables/${tableId}/contents/${randomUUID()}`);
    let made = 0;
    const entry = () => {
      const i = made++ & 4095;
      return {
        projectId,
        requestId: requestIds[i],
        method: 'GET',
        path: paths[i],
        status: 200,
        durationMs: (i % 500) / 100,
        apiKeyId: keyId,
        accountId: null,
        ip: '127.0.0.1',
        userAgent: null,
        createdAt: Date.now(),
      };
    };
    const drive = async (seconds: number, rate: number) => {
      const started = Date.now();
      let pushed = 0;
      while (Date.now() - started < seconds * 1000) {
        const due = Math.floor(((Date.now() - started) / 1000) * rate);
        for (; pushed < due; pushed++) buffer.push(entry());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // The last hand-over and its ingest.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return pushed;
    };
    const sample = async () => ({ self: process.cpuUsage(), postgres: postmaster ? await treeTicks(postmaster) : null, worker: options.worker.pid ? await treeTicks(options.worker.pid) : null });
    const cost = async (seconds: number, rate: number) => {
      const before = await sample();
      const pushed = await drive(seconds, rate);
      const after = await sample();
      const self = process.cpuUsage(before.self);
      const ticks = (a: number | null, b: number | null) => (a === null || b === null ? null : (b - a) * TICK_MICROS);
      return { pushed, api: self.user + self.system, postgres: ticks(before.postgres, after.postgres), worker: ticks(before.worker, after.worker) };
    };
    await drive(2, options.rate);
    const busy = await cost(options.seconds, options.rate);
    const idle = await cost(options.seconds, 0);
    const perEntry = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.max(0, a - b) / busy.pushed);
    return {
      entriesPerSecond: options.rate,
      apiMicros: perEntry(busy.api, idle.api)!,
      postgresMicros: perEntry(busy.postgres, idle.postgres),
      workerMicros: perEntry(busy.worker, idle.worker),
    };
  } finally {
    await client.end();
    await buffer.close();
    await boss.stop({ graceful: false });
  }
}
