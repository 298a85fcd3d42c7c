// `npm run bench`: runs the `run()` of every module in bench/ in turn (file name
// order). `npm run bench -- graphql rest` runs only the named modules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Measured as the service runs in production (README, Configuration): graphql-js reads
// NODE_ENV when it loads, which is after this line (the bench modules load below).
process.env.NODE_ENV ??= 'production';
process.stdout.write(`NODE_ENV=${process.env.NODE_ENV}\n`);

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .sort();

let failed = false;
for (const file of files) {
  const name = path.basename(file, '.ts');
  if (only.length > 0 && !only.includes(name)) continue;
  const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { run?: () => Promise<void> };
  if (typeof module.run !== 'function') continue;
  process.stdout.write(`\n== bench/${file} ==\n`);
  try {
    await module.run();
  } catch (error) {
    failed = true;
    process.stderr.write(`bench/${file} failed: ${(error as Error).stack ?? String(error)}\n`);
  }
}
process.exit(failed ? 1 : 0);
