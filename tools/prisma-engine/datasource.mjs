// Datasource URL -> Prisma driver adapter factory, plus the small database
// management operations (`cli can-connect-to-database` / `create-database` /
// `drop-database`) that the native schema engine performs itself.
//
// URL rule (same as the app's runtime):
//   pglite:<dir> | pglite:memory: | file:<dir> | <plain path>  -> PGlite
//   postgresql://... | postgres://...                          -> @prisma/adapter-pg
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

/** A user-facing error: the CLI prints `<code>: <message>` (https://pris.ly/d/prisma-errors). */
export class EngineError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** @returns {{kind: 'pglite', dataDir?: string} | {kind: 'postgres', url: string}} */
export function parseDatasourceUrl(url, cwd = process.cwd()) {
  if (!url) return { kind: 'pglite' }; // no datasource configured: in memory
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  let dir;
  if (url.startsWith('pglite:')) dir = url.slice('pglite:'.length);
  else if (url.startsWith('file://')) dir = fileURLToPath(url);
  else if (url.startsWith('file:')) dir = url.slice('file:'.length);
  else if (!/^[a-z][a-z0-9+.-]+:/i.test(url)) dir = url; // a plain path
  else throw new EngineError('P1013', `The provided database string is invalid. Use pglite:<directory>, pglite:memory: or postgresql://... (got \`${url.replace(/\/\/[^@/]*@/, '//***@')}\`).`);
  if (dir === '' || /^memory:(\/\/.*)?$/.test(dir)) return { kind: 'pglite' };
  return { kind: 'pglite', dataDir: path.resolve(cwd, dir) };
}

/**
 * Builds the SqlMigrationAwareDriverAdapterFactory the wasm engine runs on.
 *
 * If `scratchMain` is set when the engine connects (the command never reads
 * the configured database, e.g. `migrate diff --from-migrations ... --to-schema`),
 * a PGlite datasource is replaced by a throwaway in-memory one: the engine
 * still probes the server version at start, but we neither create nor open
 * (possibly while the app has it open) the PGlite directory.
 *
 * Shadow databases: `shadowDatabaseUrl` if given; otherwise a fresh in-memory
 * PGlite for PGlite, or a temporary database on the same PostgreSQL server
 * (dropped when the engine is done with it, as the native engine does).
 * Call `close()` before exiting: it releases everything that was opened.
 */
export function createAdapterFactory({ url, shadowDatabaseUrl }, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  const cleanups = [];
  const onClose = (fn) => {
    let promise;
    cleanups.push(() => (promise ??= fn()));
    return () => (promise ??= fn());
  };

  const openPglite = async (dataDir) => {
    const db = dataDir ? await PGlite.create({ dataDir: mkdirp(dataDir) }) : await freshInMemoryPglite();
    const adapter = patchAdapter(await new PrismaPGlite(db).connect(), { pglite: db });
    adapter.dispose = onClose(() => db.close());
    return adapter;
  };

  const openPg = async (connectionString, afterClose) => {
    const { connectionString: cs, schema } = splitSchemaParam(connectionString);
    const adapter = patchAdapter(await new PrismaPg({ connectionString: cs }, schema ? { schema } : undefined).connect());
    const endPool = adapter.dispose.bind(adapter);
    // End the pool first: a database cannot be dropped while we are connected to it.
    adapter.dispose = onClose(async () => {
      await endPool();
      await afterClose?.();
    });
    return adapter;
  };

  const adapterName = target.kind === 'pglite' ? 'pglite-prisma-adapter' : '@prisma/adapter-pg';
  const adapters = {
    scratchMain: false,
    factory: {
      provider: 'postgres',
      adapterName,
      connect() {
        if (target.kind === 'postgres') return openPg(target.url);
        return openPglite(adapters.scratchMain ? undefined : target.dataDir);
      },
      async connectToShadowDb() {
        if (shadowDatabaseUrl) return openPg(shadowDatabaseUrl);
        if (target.kind === 'pglite') return openPglite(undefined);
        const name = `prisma_migrate_shadow_db_${randomUUID()}`;
        await adminQuery(target.url, `CREATE DATABASE "${name}"`);
        return openPg(withDatabase(target.url, name), () => adminQuery(target.url, `DROP DATABASE IF EXISTS "${name}"`));
      },
    },
    async close() {
      for (const fn of cleanups.reverse()) await fn().catch((e) => process.stderr.write(`${JSON.stringify({ level: 'WARN', fields: { message: `cleanup failed: ${e.message}` }, target: 'schema_engine::logger' })}\n`));
    },
  };
  return adapters;
}

/**
 * Work around adapter gaps the native engine does not have:
 *  - the engine's catalog queries return columns of PostgreSQL's internal
 *    `"char"` type (oid 18, e.g. pg_class.relkind), which both adapters reject
 *    as unsupported; report them as text (the value already is a string);
 *  - pglite-prisma-adapter's executeScript does not await the script (errors
 *    are lost); adapter-pg's splits it on every `;` (breaks `;` in strings and
 *    `$$` bodies). Send the whole script as one simple-protocol query instead,
 *    like the native engine.
 * Both rely on the adapters' `performIO`/`client`/`onError` internals; the
 * versions are pinned in package.json.
 */
function patchAdapter(adapter, { pglite } = {}) {
  const patchQueryable = (queryable) => {
    const performIO = queryable.performIO.bind(queryable);
    queryable.performIO = async (query) => {
      const result = await performIO(query);
      for (const field of result?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
      return result;
    };
    return queryable;
  };
  patchQueryable(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (...args) => patchQueryable(await startTransaction(...args));
  adapter.executeScript = async (script) => {
    try {
      await (pglite ? pglite.exec(script) : adapter.client.query(script));
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

// ---------------------------------------------------------------------------
// PGlite

const mkdirp = (dir) => (fs.mkdirSync(dir, { recursive: true }), dir);

/**
 * initdb takes ~5 s in PGlite; restoring a freshly initialised data directory
 * from a tarball takes ~1 s. The tarball is built once per PGlite version and
 * kept in the OS temp directory.
 */
async function freshInMemoryPglite() {
  const file = path.join(os.tmpdir(), 'prisma-engine-pglite', `pgdata-${pgliteVersion()}.tar.gz`);
  try {
    const bytes = fs.readFileSync(file);
    return await PGlite.create({ loadDataDir: new Blob([bytes], { type: 'application/x-gzip' }) });
  } catch {
    const db = await PGlite.create();
    try {
      const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
      const tmp = `${mkdirp(path.dirname(file))}/.${process.pid}-${randomUUID()}`;
      fs.writeFileSync(tmp, dump);
      fs.renameSync(tmp, file); // atomic: concurrent engines never see a partial file
    } catch {
      // no cache then; not an error
    }
    return db;
  }
}

function pgliteVersion() {
  let dir = path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

// ---------------------------------------------------------------------------
// `schema-engine cli <command>`

export async function canConnect(url, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  if (target.kind === 'pglite') return; // PGlite creates its directory on first open
  await withClient(target.url, (client) => client.query('SELECT 1'));
}

/** @returns the database name */
export async function createDatabase(url, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  if (target.kind === 'pglite') {
    if (target.dataDir) await (await PGlite.create({ dataDir: mkdirp(target.dataDir) })).close();
    return target.dataDir ?? 'memory';
  }
  const name = databaseName(target.url);
  await adminQuery(target.url, `CREATE DATABASE ${quoteIdent(name)}`);
  return name;
}

export async function dropDatabase(url, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  if (target.kind === 'pglite') {
    // Only delete something that is recognisably a PostgreSQL data directory.
    if (target.dataDir && fs.existsSync(path.join(target.dataDir, 'PG_VERSION'))) fs.rmSync(target.dataDir, { recursive: true });
    return;
  }
  await adminQuery(target.url, `DROP DATABASE ${quoteIdent(databaseName(target.url))}`);
}

// ---------------------------------------------------------------------------
// node-postgres helpers

const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;
const databaseName = (url) => decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
const withDatabase = (url, database) => {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
};

/** Prisma URLs may carry `?schema=`; node-postgres does not know it. */
function splitSchemaParam(url) {
  const u = new URL(url);
  const schema = u.searchParams.get('schema') ?? undefined;
  u.searchParams.delete('schema');
  return { connectionString: u.toString(), schema };
}

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: splitSchemaParam(url).connectionString });
  try {
    await client.connect();
    return await fn(client);
  } catch (error) {
    throw toEngineError(error, url);
  } finally {
    await client.end().catch(() => {});
  }
}

/** CREATE/DROP DATABASE, run from the server's maintenance database. */
async function adminQuery(url, sql) {
  try {
    return await withClient(withDatabase(url, 'postgres'), (client) => client.query(sql));
  } catch (error) {
    if (error.code !== 'P1003') throw error; // no `postgres` database on this server
    return withClient(withDatabase(url, 'template1'), (client) => client.query(sql));
  }
}

function toEngineError(error, url) {
  const u = new URL(url);
  const at = `${u.hostname || 'localhost'}:${u.port || 5432}`;
  switch (error.code) {
    case '3D000':
      return new EngineError('P1003', `Database \`${databaseName(url)}\` does not exist on the database server at \`${at}\`.`);
    case '28P01':
    case '28000':
      return new EngineError('P1000', `Authentication failed against database server at \`${at}\`, the provided database credentials for \`${decodeURIComponent(u.username)}\` are not valid.`);
    case '42P04':
      return new EngineError('P1009', `Database \`${databaseName(url)}\` already exists on the database server at \`${at}\``);
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'EAI_AGAIN':
      return new EngineError('P1001', `Can't reach database server at \`${at}\`\n\nPlease make sure your database server is running at \`${at}\`.`);
    default:
      return Object.assign(new Error(error.message), { code: error.code });
  }
}
