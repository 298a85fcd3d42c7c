// Opening PGlite databases the way the app does (src/db/embedded.ts; keep the
// lock protocol in sync): PGlite allows one process per data directory. The
// process that creates `<dir>.lock` ({"pid": ...}) owns the directory; when the
// owner is the server it also serves the database on a Unix socket
// (`socketDir` in the lock file) and later processes connect there instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';

// The extensions the migrations create; the app's list is src/db/pgliteExtensions.ts (keep in sync).
const extensions = { pg_trgm, unaccent };

const mkdirp = (dir) => (fs.mkdirSync(dir, { recursive: true }), dir);

/**
 * @returns {Promise<{db: PGlite, close(): Promise<void>} | {socketDir: string}>}
 *   the opened database, or the socket of the process that owns it
 */
export async function openPgliteDirectory(dataDir) {
  const lockPath = `${dataDir}.lock`;
  mkdirp(path.dirname(dataDir));
  // A lock left by a dead process is stale; remove it and try again (bounded).
  // A live owner without a socket may be the previous engine, still closing: wait a little.
  const deadline = Date.now() + 5000;
  for (let attempt = 0; attempt < 3; ) {
    if (tryTakeLock(lockPath)) {
      const release = () => readLock(lockPath)?.pid === process.pid && fs.rmSync(lockPath, { force: true });
      try {
        const db = await createPglite(dataDir);
        return { db, close: () => db.close().finally(release) };
      } catch (error) {
        release();
        throw error;
      }
    }
    const lock = readLock(lockPath);
    if (lock && processAlive(lock.pid)) {
      if (lock.socketDir && fs.existsSync(path.join(lock.socketDir, '.s.PGSQL.5432'))) return { socketDir: lock.socketDir };
      if (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      throw new Error(`The embedded database ${dataDir} is open in process ${lock.pid} without a socket; stop that process or use PostgreSQL.`);
    }
    fs.rmSync(lockPath, { force: true });
    attempt++;
  }
  throw new Error(`Could not take the lock ${lockPath}.`);
}

/** Removes a PGlite data directory, unless a live process has it open. */
export function removePgliteDirectory(dataDir) {
  const lock = readLock(`${dataDir}.lock`);
  if (lock && processAlive(lock.pid)) throw new Error(`The embedded database ${dataDir} is open in process ${lock.pid}.`);
  // Only delete something that is recognisably a PostgreSQL data directory.
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) fs.rmSync(dataDir, { recursive: true });
  fs.rmSync(`${dataDir}.lock`, { force: true });
}

export const openPgliteMemory = () => createPglite(undefined);

/**
 * PGlite's initdb takes ~5 s; restoring a freshly initialised data directory
 * from a tarball takes ~1 s, so new databases start from a template built once
 * per PGlite version and kept in the OS temp directory.
 */
async function createPglite(dataDir) {
  const isNew = !dataDir || !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const loadDataDir = isNew ? await template() : undefined;
  return PGlite.create({ ...(dataDir && { dataDir: mkdirp(dataDir) }), ...(loadDataDir && { loadDataDir }), extensions });
}

async function template() {
  const file = path.join(os.tmpdir(), 'prisma-engine-pglite', `pgdata-${pgliteVersion()}.tar.gz`);
  try {
    if (!fs.existsSync(file)) {
      const db = await PGlite.create();
      const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
      await db.close();
      const tmp = path.join(mkdirp(path.dirname(file)), `.${process.pid}-${randomUUID()}`);
      fs.writeFileSync(tmp, dump);
      fs.renameSync(tmp, file); // atomic: a concurrent engine never reads a partial file
    }
    return new Blob([fs.readFileSync(file)], { type: 'application/x-gzip' });
  } catch {
    return undefined; // no template: plain initdb
  }
}

function pgliteVersion() {
  let dir = path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function readLock(lockPath) {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8'));
  } catch {
    return undefined;
  }
}

function tryTakeLock(lockPath) {
  try {
    fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid }), { flag: 'wx' });
    return true;
  } catch (error) {
    if (error.code === 'EEXIST') return false;
    throw error;
  }
}
