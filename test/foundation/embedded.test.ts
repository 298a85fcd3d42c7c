// The embedded database on disk checkpoints by WAL size (max_wal_size 64MB instead of
// PostgreSQL's 1GB): PGlite's single-user backend has no timed checkpoints, so this is
// what bounds the WAL a restart after a crash must replay (see src/db/embedded.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it.skipIf(Boolean(process.env.TEST_DATABASE_URL))('opens an embedded data directory with a small max_wal_size', async () => {
  const seed = new PGlite(path.join(dir, 'db'), { loadDataDir: new Blob([fs.readFileSync(inject('pgliteTemplate'))]) });
  await seed.waitReady;
  await seed.close();
  const db = await openDatabase(`pglite:${path.join(dir, 'db')}`);
  try {
    const [setting] = await db.sql.query<{ max_wal_size: string }>('SHOW max_wal_size');
    expect(setting.max_wal_size).toBe('64MB');
    // Migrations and queries work as before.
    expect(await db.prisma.store.count()).toBe(0);
  } finally {
    await db.close();
  }
});
