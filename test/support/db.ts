// A fresh, migrated database for one test file: a copy of the run's template.
import fs from 'node:fs';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { PGLITE_EXTENSIONS } from '../../src/db/pgliteExtensions.ts';
import { databaseName } from './globalSetup.ts';

/** `searchTimeLimitMs`: the service's SEARCH_TIME_LIMIT_MS, which its reads are opened with. */
export async function createTestDatabase(options: { searchTimeLimitMs?: number } = {}): Promise<Database> {
  const postgresUrl = process.env.TEST_DATABASE_URL;
  if (postgresUrl) {
    const name = `t_${inject('runId')}_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject('postgresTemplate')}"`);
    } finally {
      await admin.end();
    }
    const db = await openDatabase(databaseName(postgresUrl, name), { poolSize: 10, ...options });
    const close = db.close.bind(db);
    db.close = async () => {
      await close();
      const cleanup = new pg.Client({ connectionString: postgresUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => cleanup.end());
    };
    return db;
  }
  const template = fs.readFileSync(inject('pgliteTemplate'));
  return openDatabase('pglite:memory:', { loadDataDir: new Blob([template]), ...options });
}

/**
 * A new, empty PostgreSQL database on TEST_DATABASE_URL's server (no tables, not migrated),
 * named so the run's teardown drops it if the test does not.
 */
export async function createEmptyPostgresDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const postgresUrl = process.env.TEST_DATABASE_URL;
  if (!postgresUrl) throw new Error('createEmptyPostgresDatabase needs TEST_DATABASE_URL');
  const name = `t_${inject('runId')}_${label}_${crypto.randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end());
  return {
    url: databaseName(postgresUrl, name),
    async drop() {
      const cleanup = new pg.Client({ connectionString: postgresUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => cleanup.end());
    },
  };
}

/** A migrated database a test's service process can be killed on and started again on (its `url`). */
export interface RestartableDatabase {
  url: string;
  /** Runs fn with the database open in this process; PGlite's directory may be open in one process only. */
  use<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * On PostgreSQL a copy of the template, open in this process too; on PGlite the run's migrated
 * template unpacked into a directory of its own (which saves an initdb), opened only while `use` runs.
 */
export async function createRestartableDatabase(label: string): Promise<RestartableDatabase> {
  if (process.env.TEST_DATABASE_URL) {
    const db = await createTestDatabase();
    return { url: db.url, use: (fn) => fn(db), close: () => db.close() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  const seed = new PGlite(path.join(dir, 'db'), { loadDataDir: new Blob([fs.readFileSync(inject('pgliteTemplate'))]), extensions: PGLITE_EXTENSIONS });
  await seed.waitReady;
  await seed.close();
  const url = `pglite:${path.join(dir, 'db')}`;
  return {
    url,
    async use(fn) {
      const db = await openDatabase(url);
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
    async close() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
