// Loads @prisma/schema-engine-wasm under plain Node.js (its entry point does
// `import * as wasm from "./schema_engine_bg.wasm"`, which Node 20 cannot load
// without --experimental-wasm-modules) and maps JSON-RPC methods onto it.
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as runtime from '@prisma/schema-engine-wasm/schema_engine_bg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

let initialized;
function init() {
  initialized ??= (async () => {
    const wasmPath = fileURLToPath(import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg')).replace(/\.js$/, '.wasm');
    const { instance } = await WebAssembly.instantiate(await fs.readFile(wasmPath), { './schema_engine_bg.js': runtime });
    runtime.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
  })();
  return initialized;
}

export async function engineVersion() {
  await init();
  return runtime.version();
}

// JSON-RPC methods the CLI sends under another name than the wasm class uses.
const RENAMED = { getDatabaseVersion: 'version' };

/**
 * @param {[string, string][]} datamodels  [path, content] of each schema file
 * @param {object} adapterFactory          a SqlMigrationAwareDriverAdapterFactory
 * @param {(line: string) => void} log     receives the engine's tracing output
 */
export async function startEngine(datamodels, adapterFactory, log) {
  await init();
  const newEngine = async (factory) => {
    const bound = bindMigrationAwareSqlAdapterFactory(factory);
    // Exceptions thrown by adapter code reach us as "External error id#N";
    // the original error is kept in the adapter's error registry.
    const unwrap = (error) => {
      const id = /External error id#(\d+)/.exec(error?.message ?? '')?.[1];
      return (id !== undefined && bound.errorRegistry.consumeError(Number(id))?.error) || error;
    };
    const engine = await runtime.SchemaEngine.new({ datamodels: datamodels.length ? datamodels : undefined }, log, bound).catch((e) => {
      throw unwrap(e);
    });
    return {
      free: () => engine.free(),
      call: (method, params) =>
        engine[RENAMED[method] ?? method](params).catch((e) => {
          throw unwrap(e);
        }),
    };
  };
  const engine = await newEngine(adapterFactory);

  /**
   * The wasm engine's createMigration and evaluateDataLoss only use the shadow
   * database indirectly: they read the schema of the migrations directory
   * from a cache that diagnoseMigrationHistory/devDiagnostic fill, keyed by
   * the list of migrations *applied to the database*. When the list differs
   * (`migrate dev` has just applied pending migrations, or `--create-only`
   * with unapplied ones) they fail with "PostgreSQL shadow DB must be provided
   * through an external factory" where the native engine would use a shadow
   * database. Fill the cache and retry.
   */
  async function withMigrationsSchema(method, params) {
    const { migrationsList, filters } = params;
    const diagnosis = await engine.call('diagnoseMigrationHistory', { migrationsList, optInToShadowDatabase: true, filters });
    if (diagnosis.history === null && diagnosis.failedMigrationNames.length === 0) {
      return engine.call(method, params); // every migration is applied: the cache now holds them all
    }
    if (method !== 'createMigration') throw new Error(`${method}: the database is not up to date with the migrations directory`);
    // Some migrations are not applied: generate the migration on a scratch engine
    // whose database is a fresh shadow database with every migration applied.
    const scratch = await newEngine({ ...adapterFactory, connect: () => adapterFactory.connectToShadowDb() });
    try {
      if (migrationsList.shadowDbInitScript) await scratch.call('dbExecute', { datasourceType: { tag: 'url', url: '' }, script: migrationsList.shadowDbInitScript });
      await scratch.call('applyMigrations', { migrationsList, filters });
      await scratch.call('diagnoseMigrationHistory', { migrationsList, optInToShadowDatabase: true, filters });
      return await scratch.call(method, params);
    } finally {
      scratch.free();
    }
  }

  return {
    has: (method) => {
      const name = RENAMED[method] ?? method;
      return name !== 'constructor' && name !== 'free' && typeof runtime.SchemaEngine.prototype[name] === 'function';
    },
    call: (method, params) =>
      engine.call(method, params).catch((error) => {
        const needsShadow = /shadow DB must be provided through an external factory/.test(error?.message);
        if (needsShadow && (method === 'createMigration' || method === 'evaluateDataLoss')) return withMigrationsSchema(method, params);
        throw error;
      }),
  };
}
