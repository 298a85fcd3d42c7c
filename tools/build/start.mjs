// `npm start`: the compiled service, built first when dist/ is missing or stale.
import { runBuilt } from './build.mjs';

await runBuilt('main.js');
