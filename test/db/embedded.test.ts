// The embedded database on disk bounds the WAL a restart after a crash must replay by
// checkpointing itself (PGlite's single-user backend has no checkpointer and no timed
// checkpoints; see src/db/embedded.ts). A small max_wal_size did that once and hung the
// database for good after ~30 MB of writes: writes past that volume must keep working.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { CHECKPOINT_WAL_BYTES, checkpointWhenBehind, openEmbedded } from '../../src/db/embedded.ts';
import { PGLITE_EXTENSIONS } from '../../src/db/pgliteExtensions.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function seededDirectory(name: string): Promise<string> {
  const dataDir = path.join(dir, name);
  const seed = new PGlite(dataDir, { loadDataDir: new Blob([fs.readFileSync(inject('pgliteTemplate'))]), extensions: PGLITE_EXTENSIONS });
  await seed.waitReady;
  await seed.close();
  return dataDir;
}

const walSinceCheckpoint = async (pglite: PGlite) =>
  Number(
    (await pglite.query<{ behind: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS behind FROM pg_control_checkpoint()'))
      .rows[0].behind,
  );

it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
  'keeps writing past twice the checkpoint distance of WAL, and a checkpoint brings the distance back to zero',
  async () => {
    const handle = await openEmbedded(await seededDirectory('wal'), { share: false });
    if (handle.mode !== 'owner') throw new Error('expected to own the directory');
    try {
      const { pglite } = handle;
      await pglite.exec('CREATE TABLE filler (payload text)');
      while ((await walSinceCheckpoint(pglite)) < 2 * CHECKPOINT_WAL_BYTES) {
        await pglite.exec(`INSERT INTO filler SELECT md5(g::text) || repeat('x', 500) FROM generate_series(1, 4000) g`);
      }
      expect(await checkpointWhenBehind(pglite)).toBe(true);
      expect(await walSinceCheckpoint(pglite)).toBeLessThan(1024 * 1024);
      expect(await checkpointWhenBehind(pglite)).toBe(false);
      const { rows } = await pglite.query<{ count: number }>('SELECT count(*)::int AS count FROM filler');
      expect(rows[0].count % 4000).toBe(0);
    } finally {
      await handle.close();
    }
  },
  60_000,
);

it.skipIf(Boolean(process.env.TEST_DATABASE_URL))('opens an embedded data directory that migrations and queries work on', async () => {
  const db = await openDatabase(`pglite:${await seededDirectory('db')}`);
  try {
    expect(await db.prisma.store.count()).toBe(0);
  } finally {
    await db.close();
  }
});
