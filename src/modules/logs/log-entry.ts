/** One request as the API saw it (docs/logs-and-metrics.md#request-logs), on its way to the log-ingest worker. */
export interface RequestLogEntry {
  projectId: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  apiKeyId: string | null;
  accountId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** Arrival, epoch milliseconds. The row's id (UUID v7 of this instant) is made on insert. */
  createdAt: number;
  /** An event stream (docs/logs-and-metrics.md "Streams"): counted apart from requests. Absent: a request. */
  stream?: true;
  /** Made by the admin console (its `Tabula-Client: console` header): a marker to tell its calls apart, not a proof. Absent: any other client. */
  console?: true;
}
