// Applies prisma/migrations at start-up and records them in `_prisma_migrations`
// exactly as `prisma migrate deploy` does (same table, checksum and columns), so
// `prisma migrate status` agrees with what the service did. Each migration runs in
// its own transaction under Prisma's advisory lock, so instances starting together
// apply it once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';
import type { SqlChannel } from './sqlChannel.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

// The key the Prisma schema engine locks with; sharing it keeps the CLI and the service apart.
const ADVISORY_LOCK_KEY = 72707369;

const MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Applies every migration not yet recorded; returns the names applied. */
export async function applyMigrations(db: Pick<Database, 'session'>, dir = MIGRATIONS_DIR): Promise<string[]> {
  return db.session((sql) => applyOnSession(sql, dir));
}

async function applyOnSession(sql: SqlChannel, dir: string): Promise<string[]> {
  const migrations = readMigrations(dir);
  await sql.exec(MIGRATIONS_TABLE);
  await sql.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
  try {
    const rows = await sql.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
    for (const row of applied.values()) {
      if (row.finished_at === null) {
        throw new MigrationError(
          `migration ${row.migration_name} started but did not finish; resolve it with "prisma migrate resolve" before starting`,
        );
      }
    }
    const done: string[] = [];
    for (const migration of migrations) {
      const row = applied.get(migration.name);
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} was changed after it was applied (checksum differs)`);
        }
        continue;
      }
      const id = crypto.randomUUID();
      await sql.exec(
        `BEGIN;\n${migration.sql}\n;` +
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) ` +
          `VALUES ('${id}', '${migration.checksum}', '${migration.name.replace(/'/g, "''")}', now(), now(), 1);\nCOMMIT;`,
      ).catch(async (error: unknown) => {
        await sql.exec('ROLLBACK').catch(() => undefined);
        throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
      });
      done.push(migration.name);
    }
    return done;
  } finally {
    await sql.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]);
  }
}
