import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config/config.js';
import type { Orm } from './db/orm.js';
import type { ReplicaSet } from './db/replicas.js';
import type { Logger } from './shared/logger.js';
import type { Storage } from './storage/storage.js';
import type { CredentialResolver } from './auth/credentials.js';
import type { ProjectDirectory } from './modules/projects/project-directory.js';
import type { ListCache } from './modules/contents/index.js';
import type { TableDefinitions } from './modules/tables/table-definitions.js';
import type { RequestLogBuffer } from './modules/logs/log-buffer.js';
import type { EventFeed } from './modules/events/feed/feed-reader.js';
import type { EventStreams } from './modules/events/stream/stream-registry.js';
import type { ImageDerivatives } from './modules/images/derivative.service.js';

/** The long-lived collaborators of the API process, passed down through the request context. */
export interface AppDeps {
  config: Config;
  orm: Orm;
  boss: PgBoss;
  logger: Logger;
  credentials: CredentialResolver;
  projects: ProjectDirectory;
  tables: TableDefinitions;
  /** Contents list pages and totals, kept up to date with the change log. */
  results: ListCache;
  /** A plain pool for hot-path statements that need no unit of work (rate limits, lists). */
  pool: pg.Pool;
  /**
   * Where read-only GETs read (docs/scaling-out.md#read-replicas): the primary (`pool`, `results`) or a
   * replica with a list cache of its own. No replicas configured: always the primary.
   */
  reads: ReplicaSet<ListCache>;
  /** File bytes: the STORAGE_DRIVER for new uploads, and every driver for stored ones. */
  storage: Storage;
  /** Image transformations of stored files and their cache (docs/resources.md#image-transformations). */
  images: ImageDerivatives;
  /** Request log entries on their way to the queue; null when REQUEST_LOGGING is off. */
  requestLogs: RequestLogBuffer | null;
  /** The realtime feed as this process reads it, and its open streams (docs/realtime.md#how-it-works). */
  feed: EventFeed;
  streams: EventStreams;
}
