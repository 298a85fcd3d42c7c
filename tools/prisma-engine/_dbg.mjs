import { createAdapterFactory } from './datasource.mjs';
import { startEngine } from './wasm-engine.mjs';
const a = createAdapterFactory({ url: process.argv[2] ?? 'pglite:./data/pglite' }, process.cwd());
try { const e = await startEngine([], a.factory, (l) => console.error('LOG', l)); console.log('ok');
 for (const [m,p] of JSON.parse(process.argv[3] ?? '[]')) { try { console.log(m, JSON.stringify(await e.call(m,p))); } catch (err) { console.error('ERR', m, err, Object.entries(err)); } }
} catch (e) { console.error('ERR', e); }
await a.close();
