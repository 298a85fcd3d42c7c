// PGlite allows one process per data directory. The first process to take the lock
// file owns the directory; when it is the server it also serves the database on a
// Unix socket, and later processes (the CLI while the server runs) connect there
// instead of opening the directory a second time.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PGLITE_EXTENSIONS } from './pgliteExtensions.ts';

export type EmbeddedHandle =
  | { mode: 'owner'; pglite: PGlite; close(): Promise<void> }
  | { mode: 'client'; socketDir: string };

interface LockContent {
  pid: number;
  /** Directory holding `.s.PGSQL.5432` while the owner serves the database. */
  socketDir?: string;
}

export class EmbeddedDatabaseBusyError extends Error {}

// PGlite runs PostgreSQL in single-user mode: there is no checkpointer, so no timed
// checkpoint ever runs, and with the default max_wal_size (1GB) a checkpoint comes only
// after about 540 MB of WAL. A process killed before that replays all of it on the next
// start, single-threaded in WebAssembly (measured: ~190 MB of WAL took 3.6 s instead of
// 1.5 s on an idle core, many times that on a busy machine). A smaller max_wal_size is not
// the way: when WAL reaches it the backend asks for a checkpoint from a checkpointer that
// does not exist and waits for it in a loop, and every query after waits behind it (with
// 64MB, the first ~30 MB of writes hung the database for good). The owner checkpoints
// itself instead, with the CHECKPOINT command, whenever the WAL since the last checkpoint
// passes CHECKPOINT_WAL_BYTES.
export const CHECKPOINT_WAL_BYTES = 32 * 1024 * 1024;
const CHECKPOINT_CHECK_MS = 10_000;

/** Runs CHECKPOINT when more than `walBytes` of WAL were written since the last one; true if it did. */
export async function checkpointWhenBehind(pglite: PGlite, walBytes = CHECKPOINT_WAL_BYTES): Promise<boolean> {
  const { rows } = await pglite.query<{ behind: string }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS behind FROM pg_control_checkpoint()',
  );
  if (Number(rows[0].behind) <= walBytes) return false;
  await pglite.exec('CHECKPOINT');
  return true;
}

// PostgreSQL's default 128 MB of shared buffers is resident WebAssembly memory once
// touched; an embedded database of one merchant's data fits in far less (measured: the
// process after opening an existing directory, 356 MB with the default, 256 MB with 32 MB).
const EMBEDDED_SHARED_BUFFERS = '32MB';

/** PGlite's start parameters with the embedded database's own settings. */
export const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];

// initdb, which makes a new directory, holds ~300 MB of WebAssembly and bundle memory for
// a moment; freed, it stays resident in the process. Run in a worker thread, whose memory
// is returned when the thread ends, it leaves no such residue (measured, the new directory
// then opened in the process: 391 MB against 715 MB).
const INITDB_WORKER = `
const { workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
(async () => {
  const db = new PGlite(workerData.dataDir, { startParams: workerData.startParams });
  await db.waitReady;
  await db.close();
})();`;

/** Makes the new database directory `dataDir` (PostgreSQL's initdb) in a worker thread. */
async function initializeInWorker(dataDir: string): Promise<void> {
  const worker = new Worker(INITDB_WORKER, {
    eval: true,
    workerData: { pglite: createRequire(import.meta.url).resolve('@electric-sql/pglite'), dataDir, startParams: EMBEDDED_START_PARAMS },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`making the embedded database ${dataDir} failed (worker exit code ${code})`))));
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(lockPath: string): LockContent | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockContent;
  } catch {
    return undefined;
  }
}

function tryTakeLock(lockPath: string): boolean {
  try {
    fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid } satisfies LockContent), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export async function openEmbedded(directory: string, options: { share: boolean }): Promise<EmbeddedHandle> {
  const dataDir = path.resolve(directory);
  const lockPath = `${dataDir}.lock`;
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });

  // A lock left by a dead process is stale; remove it and try again (bounded).
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryTakeLock(lockPath)) return own(dataDir, lockPath, options.share);
    const lock = readLock(lockPath);
    if (lock && processAlive(lock.pid)) {
      if (lock.socketDir && fs.existsSync(path.join(lock.socketDir, '.s.PGSQL.5432'))) {
        return { mode: 'client', socketDir: lock.socketDir };
      }
      throw new EmbeddedDatabaseBusyError(
        `the embedded database ${dataDir} is open in process ${lock.pid} without a socket; stop that process or use PostgreSQL`,
      );
    }
    fs.rmSync(lockPath, { force: true });
  }
  throw new EmbeddedDatabaseBusyError(`could not take the lock ${lockPath}`);
}

async function own(dataDir: string, lockPath: string, share: boolean): Promise<EmbeddedHandle> {
  let pglite: PGlite | undefined;
  let socketServer: PGLiteSocketServer | undefined;
  const socketDir = `${dataDir}.socket`;
  const release = () => {
    const lock = readLock(lockPath);
    if (lock?.pid === process.pid) fs.rmSync(lockPath, { force: true });
  };
  try {
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await initializeInWorker(dataDir);
    pglite = new PGlite(dataDir, { startParams: EMBEDDED_START_PARAMS, extensions: PGLITE_EXTENSIONS });
    await pglite.waitReady;
    if (share) {
      fs.rmSync(socketDir, { recursive: true, force: true });
      fs.mkdirSync(socketDir, { recursive: true, mode: 0o700 });
      socketServer = new PGLiteSocketServer({ db: pglite, path: path.join(socketDir, '.s.PGSQL.5432'), maxConnections: 8 });
      await socketServer.start();
      fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid, socketDir } satisfies LockContent));
    }
  } catch (error) {
    await pglite?.close().catch(() => undefined);
    release();
    throw error;
  }
  const db = pglite;
  let checkpointing: Promise<unknown> = Promise.resolve();
  const checkpoints = setInterval(() => {
    checkpointing = checkpointWhenBehind(db).catch((error: unknown) => {
      process.emitWarning(`checkpoint of the embedded database ${dataDir} failed: ${(error as Error).message}`);
    });
  }, CHECKPOINT_CHECK_MS).unref();
  return {
    mode: 'owner',
    pglite: db,
    async close() {
      clearInterval(checkpoints);
      await checkpointing;
      await socketServer?.stop().catch(() => undefined);
      if (share) fs.rmSync(socketDir, { recursive: true, force: true });
      await db.close();
      release();
    },
  };
}
