// `npm run schema:print`: writes schema.graphql from the served schema (test/schema/sdl.test.ts
// fails while the two differ).
import fs from 'node:fs';
import { schema } from '../../src/schema/index.ts';
import { printSortedSchema, SDL_FILE } from './sdl.ts';

fs.writeFileSync(SDL_FILE, printSortedSchema(schema));
process.stdout.write(`wrote ${SDL_FILE.pathname}\n`);
