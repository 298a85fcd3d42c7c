// Loads @prisma/schema-engine-wasm under plain Node.js (its entry point does
// `import * as wasm from "./schema_engine_bg.wasm"`, which Node 20 cannot load
// without --experimental-wasm-modules) and maps JSON-RPC methods onto it.
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as runtime from '@prisma/schema-engine-wasm/schema_engine_bg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

let initialized = false;
function init() {
  if (initialized) return;
  const jsUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const wasmPath = fileURLToPath(jsUrl).replace(/\.js$/, '.wasm');
  return fs.readFile(wasmPath).then(async (bytes) => {
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': runtime });
    runtime.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
    initialized = true;
  });
}

export async function engineVersion() {
  await init();
  return runtime.version();
}

/**
 * @param {[string, string][]} datamodels  [path, content] of each schema file
 * @param {object} adapterFactory          a SqlMigrationAwareDriverAdapterFactory
 * @param {(line: string) => void} log     receives the engine's tracing output
 * @returns {Promise<{has(method: string): boolean, call(method: string, params: unknown): Promise<unknown>}>}
 */
export async function startEngine(datamodels, adapterFactory, log) {
  await init();
  const bound = bindMigrationAwareSqlAdapterFactory(adapterFactory);
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
    has: (method) => {
      const name = RENAMED[method] ?? method;
      return name !== 'constructor' && typeof runtime.SchemaEngine.prototype[name] === 'function';
    },
    call: (method, params) =>
      engine[RENAMED[method] ?? method](params).catch((e) => {
        throw unwrap(e);
      }),
  };
}

// JSON-RPC methods the CLI sends under another name than the wasm class uses.
const RENAMED = { getDatabaseVersion: 'version' };
