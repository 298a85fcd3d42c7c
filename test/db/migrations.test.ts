// The committed migrations match prisma/schema.prisma, apply at start-up on the
// suite's database kind, and are recorded so that `prisma migrate status` agrees.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations, MigrationError, readMigrations } from '../../src/db/migrate.ts';
import { databaseName } from '../support/globalSetup.ts';

const run = promisify(execFile);
const PRISMA = path.resolve('node_modules/.bin/prisma');

let url: string;
let db: Database;
let dropDatabase: () => Promise<void>;

beforeAll(async () => {
  const postgres = process.env.TEST_DATABASE_URL;
  if (postgres) {
    const name = `t_${inject('runId')}_mig_${crypto.randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    url = databaseName(postgres, name);
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: postgres });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => c.end());
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-test-'));
    url = `pglite:${path.join(dir, 'db')}`;
    dropDatabase = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  db = await openDatabase(url);
});
afterAll(async () => {
  await db?.close();
  await dropDatabase?.();
});

// The Prisma CLI starts the WebAssembly schema engine for each command.
describe('migrations', { timeout: 240_000 }, () => {
  it('the committed migrations produce exactly prisma/schema.prisma', async () => {
    const { stdout } = await run(
      PRISMA,
      ['migrate', 'diff', '--from-migrations', 'prisma/migrations', '--to-schema', 'prisma/schema.prisma', '--exit-code'],
      { env: { ...process.env, DATABASE_URL: 'pglite:memory:' } },
    ).catch((error: { code: number; stdout: string }) => {
      throw new Error(`schema and migrations disagree (exit ${error.code}):\n${error.stdout}`);
    });
    expect(stdout).toContain('No difference detected');
  });

  it('apply once, are recorded like migrate deploy, and migrate status agrees', async () => {
    const names = readMigrations().map((m) => m.name);
    expect(await applyMigrations(db)).toEqual(names);
    expect(await applyMigrations(db)).toEqual([]);
    const rows = await db.sql.query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(readMigrations()[i].checksum);
      expect(row.finished_at).not.toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    // The CLI opens the database itself, so this connection must let go of a PGlite directory first.
    await db.close();
    const { stdout } = await run(PRISMA, ['migrate', 'status'], { env: { ...process.env, DATABASE_URL: url } });
    expect(stdout).toContain('Database schema is up to date');
    db = await openDatabase(url);
  });

  it('refuse to start when an applied migration was edited afterwards', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-edited-'));
    try {
      for (const m of readMigrations()) {
        fs.mkdirSync(path.join(dir, m.name));
        fs.writeFileSync(path.join(dir, m.name, 'migration.sql'), `${m.sql}\n-- edited\n`);
      }
      await expect(applyMigrations(db, dir)).rejects.toBeInstanceOf(MigrationError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
