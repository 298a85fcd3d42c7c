// A fresh, migrated database for one test file: a copy of the run's template.
import fs from 'node:fs';
import crypto from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
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
