// Datasource URL -> Prisma driver adapter factory for the wasm engine, plus the
// database management the native engine does itself (`cli can-connect-to-database`,
// `cli create-database`, `cli drop-database`).
//
// URL rule (same as the app's runtime, src/db/client.ts):
//   pglite:<directory> | file:<directory> | <plain path>  -> PGlite on disk
//   pglite:memory: (or no URL)                          -> PGlite in memory
//   postgresql://... | postgres://...                   -> PostgreSQL via @prisma/adapter-pg
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { openPgliteDirectory, openPgliteMemory, removePgliteDirectory } from './pglite.mjs';

/** A user-facing error: the CLI prints `<code>: <message>` (https://pris.ly/d/prisma-errors). */
export class EngineError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** @returns {{kind: 'pglite', dataDir?: string} | {kind: 'postgres', url: string}} */
export function parseDatasourceUrl(url, cwd = process.cwd()) {
  if (!url) return { kind: 'pglite' };
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  let dir;
  if (url.startsWith('pglite:')) dir = url.slice('pglite:'.length);
  else if (url.startsWith('file://')) dir = fileURLToPath(url);
  else if (url.startsWith('file:')) dir = url.slice('file:'.length);
  else if (!/^[a-z][a-z0-9+.-]+:/i.test(url)) dir = url;
  else throw new EngineError('P1013', `The provided database string is invalid. Use pglite:<directory>, pglite:memory: or postgresql://... (got \`${url.replace(/\/\/[^@/]*@/, '//***@')}\`).`);
  if (dir === '' || /^memory:(\/\/.*)?$/.test(dir)) return { kind: 'pglite' };
  return { kind: 'pglite', dataDir: path.resolve(cwd, dir) };
}

/**
 * The SqlMigrationAwareDriverAdapterFactory the wasm engine runs on.
 *
 * If `scratchMain` is set when the engine connects (the command never reads
 * the configured database, e.g. `migrate diff --from-migrations ... --to-schema`),
 * a PGlite datasource is replaced by a throwaway in-memory one: the engine
 * still probes the server version at start, but the directory is left alone.
 *
 * Shadow databases: `shadowDatabaseUrl` if it is a PostgreSQL URL (emptied
 * first, like the native engine does); otherwise an empty in-memory PGlite for
 * PGlite, or a temporary database on the same PostgreSQL server, dropped when
 * the engine is done with it.
 *
 * Call `close()` before exiting: it releases everything that was opened.
 */
export function createAdapterFactory({ url, shadowDatabaseUrl }, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  const cleanups = [];
  const onClose = (fn) => {
    let promise;
    const once = () => (promise ??= fn());
    cleanups.push(once);
    return once;
  };

  const pgliteAdapter = async (db, dispose) => {
    const adapter = patchAdapter(await new PrismaPGlite(db).connect(), { pglite: db });
    adapter.dispose = dispose;
    return adapter;
  };
  const openPgliteDir = async (dataDir) => {
    const opened = await openPgliteDirectory(dataDir);
    // Another process (the app's server) owns the directory: use its socket, one connection, like the app does.
    if (opened.socketDir) return openPg({ host: opened.socketDir, user: 'postgres', database: 'postgres', max: 1 });
    return pgliteAdapter(opened.db, onClose(opened.close));
  };

  // Loading an in-memory PGlite costs 1-3 s of CPU. One instance serves the scratch
  // main database (only probed) and, one after the other, the shadow databases the
  // engine asks for (it disposes each before asking for the next); it is emptied
  // before each reuse. A shadow requested while the shared one is lent gets its own.
  let memory;
  let memoryLent = false;
  let memoryDirty = false;
  const sharedMemory = () => (memory ??= openPgliteMemory().then((db) => (onClose(() => db.close()), db)));
  const memoryShadow = async () => {
    if (memoryLent) {
      const db = await openPgliteMemory();
      return pgliteAdapter(db, onClose(() => db.close()));
    }
    memoryLent = true;
    const db = await sharedMemory();
    if (memoryDirty) await db.exec(`${DROP_ALL_SCHEMAS}\nCREATE SCHEMA public AUTHORIZATION pg_database_owner;\nGRANT USAGE ON SCHEMA public TO PUBLIC;`);
    memoryDirty = true;
    return pgliteAdapter(db, async () => {
      memoryLent = false;
    });
  };

  /** `afterClose` runs once the pool has ended: a database cannot be dropped while connected to. */
  const openPg = async (config, { schema, afterClose } = {}) => {
    const adapter = patchAdapter(await new PrismaPg(config, schema ? { schema } : undefined).connect());
    const endPool = adapter.dispose.bind(adapter);
    adapter.dispose = onClose(async () => {
      await endPool();
      await afterClose?.();
    });
    return adapter;
  };
  const openPgUrl = (url, afterClose) => {
    const { connectionString, schema } = splitSchemaParam(url);
    return openPg({ connectionString }, { schema, afterClose });
  };

  const adapters = {
    scratchMain: false,
    factory: {
      provider: 'postgres',
      adapterName: target.kind === 'pglite' ? 'pglite-prisma-adapter' : '@prisma/adapter-pg',
      async connect() {
        if (target.kind === 'postgres') return openPgUrl(target.url);
        if (adapters.scratchMain) return pgliteAdapter(await sharedMemory(), async () => {});
        if (target.dataDir) return openPgliteDir(target.dataDir);
        const db = await openPgliteMemory(); // pglite:memory: as the real database
        return pgliteAdapter(db, onClose(() => db.close()));
      },
      async connectToShadowDb() {
        if (shadowDatabaseUrl && parseDatasourceUrl(shadowDatabaseUrl, cwd).kind === 'postgres') {
          if (shadowDatabaseUrl === url) throw new Error('The shadow database you configured appears to be the same as the main database. Please specify another shadow database.');
          const adapter = await openPgUrl(shadowDatabaseUrl);
          const schema = splitSchemaParam(shadowDatabaseUrl).schema ?? 'public';
          await adapter.executeScript(`${DROP_ALL_SCHEMAS}\nCREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)};`);
          return adapter;
        }
        if (target.kind === 'pglite' || shadowDatabaseUrl) return memoryShadow();
        const name = `prisma_migrate_shadow_db_${randomUUID()}`;
        await adminQuery(target.url, `CREATE DATABASE ${quoteIdent(name)}`);
        return openPgUrl(withDatabase(target.url, name), () => adminQuery(target.url, `DROP DATABASE IF EXISTS ${quoteIdent(name)}`));
      },
    },
    async close() {
      for (const fn of cleanups.reverse()) {
        await fn().catch((e) => process.stderr.write(`${JSON.stringify({ level: 'WARN', fields: { message: `cleanup failed: ${e.message}` }, target: 'schema_engine::logger' })}\n`));
      }
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
 *    are lost); adapter-pg's splits it on every `;` (breaks on `;` in strings
 *    and `$$` bodies). Send the whole script as one simple-protocol query, as
 *    the native engine does.
 * Both rely on the adapters' `performIO`/`client`/`onError` internals; their
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
// `schema-engine cli <command>`

export async function canConnect(url, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  if (target.kind === 'pglite') return; // PGlite creates its directory on first open
  await withClient(target.url, (client) => client.query('SELECT 1'));
}

/** @returns the database name */
export async function createDatabase(url, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  if (target.kind === 'pglite') return target.dataDir ?? 'memory'; // created on first open
  const name = databaseName(target.url);
  await adminQuery(target.url, `CREATE DATABASE ${quoteIdent(name)}`);
  return name;
}

export async function dropDatabase(url, cwd) {
  const target = parseDatasourceUrl(url, cwd);
  if (target.kind === 'pglite') return target.dataDir && removePgliteDirectory(target.dataDir);
  await adminQuery(target.url, `DROP DATABASE ${quoteIdent(databaseName(target.url))}`);
}

// ---------------------------------------------------------------------------
// node-postgres helpers

const DROP_ALL_SCHEMAS = `DO $$ DECLARE s name; BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
END $$;`;

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
