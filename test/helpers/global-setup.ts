import path from 'node:path';
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { openMigratedOrm } from '../../src/db/migrate.js';
import { startBoss } from '../../src/jobs/boss.js';
import { createLogger } from '../../src/shared/logger.js';
import { TEMPLATE_DATABASE, databaseUrlFor } from './database.js';
import { createOrmConfig } from '../../mikro-orm.config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL of the test server's maintenance database (`postgres`), to create databases from. */
    adminDatabaseUrl: string;
  }
}

/**
 * Once per `npm test`: a PostgreSQL server (DATABASE_URL when set, else an embedded one in a
 * temporary directory), and a template database with every migration and the pg-boss schema
 * applied. Each test file then copies the template (CREATE DATABASE ... TEMPLATE), which is
 * much faster than migrating per file.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | undefined;
  let tmp: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'tabula-test-'));
    embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
    serverUrl = embedded.url;
  }
  const adminUrl = databaseUrlFor(serverUrl, 'postgres');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
    await admin.query(`create database ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = databaseUrlFor(serverUrl, TEMPLATE_DATABASE);
  const orm = await openMigratedOrm(createOrmConfig(templateUrl));
  await orm.close(true);
  const boss = await startBoss(templateUrl, createLogger('silent'), 'api');
  await boss.stop({ graceful: false, timeout: 1000 });

  project.provide('adminDatabaseUrl', adminUrl);
  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`).catch(() => {});
    await client.end();
    await embedded?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  };
}
