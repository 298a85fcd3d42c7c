import fs from 'node:fs';
import { createAdapterFactory } from './datasource.mjs';
import { startEngine } from './wasm-engine.mjs';
globalThis.PRISMA_WASM_PANIC_REGISTRY = { set_message: (m) => console.error('PANIC', m) };
const dir = '/tmp/toy/migrations';
const names = fs.readdirSync(dir).filter((n) => fs.statSync(`${dir}/${n}`).isDirectory()).sort();
const migrationsList = { baseDir: dir, lockfile: { path: 'migration_lock.toml', content: fs.readFileSync(`${dir}/migration_lock.toml`, 'utf8') }, shadowDbInitScript: '',
  migrationDirectories: names.map((n) => ({ path: n, migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: fs.readFileSync(`${dir}/${n}/migration.sql`, 'utf8') } } })) };
const filters = { externalTables: [], externalEnums: [] };
const schema = { files: [{ path: '/tmp/toy/schema.prisma', content: fs.readFileSync('/tmp/toy/schema.prisma', 'utf8') }] };
const P = { migrationsList, filters, schema, optInToShadowDatabase: true, migrationName: 'x', draft: false };
const a = createAdapterFactory({ url: 'pglite:memory:' }, process.cwd());
const orig = a.factory.connectToShadowDb; a.factory.connectToShadowDb = () => { console.log('  [shadow requested]'); return orig(); };
const e = await startEngine([], a.factory, () => {});
for (const m of process.argv.slice(2)) {
  try { const r = await e.call(m, P); console.log(m, 'OK', JSON.stringify(r).slice(0, 200)); } catch (err) { console.log(m, 'ERR', err.message.split('\n')[0]); }
}
await a.close();
