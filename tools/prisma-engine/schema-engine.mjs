#!/usr/bin/env node
// Stand-in for Prisma's native `schema-engine` binary, backed by
// @prisma/schema-engine-wasm and a JS driver adapter (PGlite or node-postgres).
// The Prisma CLI runs it through PRISMA_SCHEMA_ENGINE_BINARY. See README.md.
//
//   schema-engine.mjs [--datamodels <path>]... [--datasource <json>]   JSON-RPC over stdio
//   schema-engine.mjs --datasource <json> cli <command>                one-shot command
//   schema-engine.mjs --version
import fs from 'node:fs';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { EngineError, canConnect, createAdapterFactory, createDatabase, dropDatabase } from './datasource.mjs';
import { engineVersion, startEngine } from './wasm-engine.mjs';

/** One line on stderr in the native engine's log shape; the CLI parses these. */
function logLine(level, fields) {
  process.stderr.write(JSON.stringify({ timestamp: new Date().toISOString(), level, fields, target: 'schema_engine::logger' }) + '\n');
}

function fail(error) {
  const { is_panic, error_code, message } = error instanceof EngineError ? { is_panic: false, error_code: error.code, message: error.message } : normalizeError(error);
  logLine('ERROR', { is_panic, error_code: error_code ?? '', message });
  process.exit(1);
}

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      datamodels: { type: 'string', multiple: true, default: [] },
      datasource: { type: 'string' },
      'enabled-preview-features': { type: 'string' },
      'extension-types': { type: 'string' },
      version: { type: 'boolean', short: 'V' },
    },
    allowPositionals: true,
  });

  if (values.version) {
    process.stdout.write(`schema-engine-wasm ${await engineVersion()}\n`);
    return;
  }
  const datasource = values.datasource ? JSON.parse(values.datasource) : {};
  const cwd = process.cwd();

  if (positionals[0] === 'cli') {
    // The CLI skips the first stderr line of one-shot commands, then parses every line as JSON.
    logLine('INFO', { message: 'Starting schema engine CLI (wasm)' });
    const command = positionals[1];
    if (command === 'can-connect-to-database') await canConnect(datasource.url, cwd);
    else if (command === 'create-database') {
      const databaseName = await createDatabase(datasource.url, cwd);
      logLine('INFO', { message: `Database '${databaseName}' was successfully created.`, database_name: databaseName });
    } else if (command === 'drop-database') {
      await dropDatabase(datasource.url, cwd);
      logLine('INFO', { message: 'The database was successfully dropped.' });
    } else throw new Error(`Unknown cli command: ${command}`);
    return;
  }
  if (positionals.length) throw new Error(`Unexpected arguments: ${positionals.join(' ')}`);

  // stdout carries the JSON-RPC stream: keep stray library logging off it.
  console.log = console.info = console.debug = console.error;
  const datamodels = values.datamodels.map((file) => [file, fs.readFileSync(file, 'utf8')]);
  const adapters = createAdapterFactory(datasource, cwd);
  // The CLI ends our stdin and sends SIGTERM right away when it is done; close
  // the databases properly (PGlite data directory, temporary shadow databases) first.
  let closing;
  const shutdown = () => (closing ??= adapters.close().finally(() => process.exit(0)));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  let engine; // started on the first request: its start-up connects to the database
  await serveJsonRpc(async (method, params, cli) => {
    if (method === 'createDatabase') {
      const url = params?.datasource?.tag === 'ConnectionString' ? params.datasource.url : datasource.url;
      return { databaseName: await createDatabase(url, cwd) };
    }
    if (!engine) {
      // A diff between schema files and/or migration directories does not read the configured database.
      const readsDatasource = (t) => t?.tag === 'schemaDatasource' || t?.tag === 'url';
      adapters.scratchMain = method === 'diff' && !readsDatasource(params?.from) && !readsDatasource(params?.to);
      engine = await startEngine(datamodels, adapters.factory, forwardEngineLog);
    }
    if (!engine.has(method)) throw new Error(`Method not supported by the wasm schema engine: ${method}`);
    const result = await engine.call(method, params);
    if (method === 'diff' && typeof result?.stdout === 'string') {
      // The native engine prints the diff through the CLI (a `print` request) and returns no stdout.
      await cli.request('print', { content: result.stdout });
      result.stdout = null;
    }
    return result;
  });
  await shutdown();
}

/** The wasm engine's tracing output (JSON lines): stderr, like the native engine. */
function forwardEngineLog(line) {
  process.stderr.write(`${line.trim()}\n`);
}

/**
 * Newline-delimited JSON-RPC 2.0 over stdin/stdout, until stdin closes.
 * Requests run one at a time, in order, like in the native engine;
 * `cli.request()` sends a request the other way (the CLI answers `print`).
 */
async function serveJsonRpc(handle) {
  let queue = Promise.resolve();
  let nextId = 1;
  const waiting = new Map();
  const cli = {
    request: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        send({ jsonrpc: '2.0', id, method, params });
      }),
  };
  for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    const { id, method, params } = message;
    if (method === undefined) {
      // A response to one of our requests.
      const entry = waiting.get(id);
      waiting.delete(id);
      if (message.error) entry?.reject(new Error(message.error.message));
      else entry?.resolve(message.result);
    } else if (id !== undefined) {
      queue = queue.then(async () => {
        try {
          send({ jsonrpc: '2.0', id, result: (await handle(method, params, cli)) ?? null });
        } catch (error) {
          send({ jsonrpc: '2.0', id, error: toRpcError(error) });
        }
      });
    }
  }
  await queue;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

/** Native engine error shape: `data` carries the user-facing error. */
function toRpcError(error) {
  const data = normalizeError(error);
  return { code: 4466, message: 'An error happened. Check the data field for details.', data };
}

function normalizeError(error) {
  const panic = takePanicMessage();
  if (panic || error instanceof WebAssembly.RuntimeError) {
    return { is_panic: true, message: panic ?? error.message, meta: null, error_code: null };
  }
  // Engine errors are Errors named after the Rust error kind; user-facing ones
  // carry a Prisma error code (P3005, ...) and sometimes `meta`.
  const code = typeof error?.code === 'string' && /^P\d{4}$/.test(error.code) ? error.code : null;
  return { is_panic: false, message: error?.message ?? String(error), meta: error?.meta ?? null, error_code: code };
}

// The wasm engine reports Rust panics to this global before throwing.
let panicMessage = null;
globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (message) => (panicMessage = message) };
function takePanicMessage() {
  const message = panicMessage;
  panicMessage = null;
  return message;
}

main().catch(fail);
