// Database refusals, as the real database and driver raise them, sorted into the two
// kinds every door answers specially (db/failures.ts): input whose bytes the database
// cannot store is the caller's (400); anything else stays unclassified (a 500 to fix).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { databaseFailure } from '../../src/db/failures.ts';
import { classifyError } from '../../src/schema/errors.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the database to refuse');
}

describe('database failures', () => {
  it('U+0000 in a value, through Prisma and through the raw channel, is refused input', async () => {
    const viaPrisma = await failureOf(() => createStore(db.prisma, { name: 'nul\u0000here' }));
    expect(databaseFailure(viaPrisma)).toBe('input');
    expect(classifyError(viaPrisma)).toMatchObject({ code: 'BAD_USER_INPUT' });
    const viaSql = await failureOf(() => db.sql.query('SELECT $1::text AS value', ['nul\u0000here']));
    expect(databaseFailure(viaSql)).toBe('input');
  });

  // PGlite parses this depth (its stack is not PostgreSQL's); the doors bound nesting before any value reaches a database.
  it.runIf(process.env.TEST_DATABASE_URL)('a JSON value nested deeper than PostgreSQL can parse (stack depth) is refused input', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(databaseFailure(await failureOf(() => db.sql.query('SELECT $1::jsonb AS value', [deep])))).toBe('input');
  });

  it('other failures stay unclassified: a unique violation, a division by zero', async () => {
    const { id } = await createStore(db.prisma, { name: 'twice' });
    const duplicate = await failureOf(() => db.sql.query('INSERT INTO "Store" SELECT * FROM "Store" WHERE id = $1', [id]));
    expect(databaseFailure(duplicate)).toBeUndefined();
    expect(databaseFailure(await failureOf(() => db.sql.query('SELECT 1 / 0')))).toBeUndefined();
    expect(databaseFailure(new Error('boom'))).toBeUndefined();
  });
});
