// `npm run cli`: the compiled admin CLI, built first when dist/ is missing or stale.
import { runBuilt } from './build.mjs';

await runBuilt('cli.js');
