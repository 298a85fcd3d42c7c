// The checked-in schema.graphql is the served v3 schema (issue 27): a change to the schema
// shows in review as a change to that file, and the breaking-change check (npm run
// schema:check) compares it with the released one.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';
import { printSortedSchema, SDL_FILE } from '../../tools/schema/sdl.ts';

describe('schema.graphql', () => {
  it('is the served schema, printed and sorted (regenerate with npm run schema:print)', () => {
    const served = printSortedSchema(schema);
    const checkedIn = fs.existsSync(SDL_FILE) ? fs.readFileSync(SDL_FILE, 'utf8') : '';
    expect(checkedIn === served, 'schema.graphql differs from the served schema: run npm run schema:print and review the diff').toBe(true);
  });
});
