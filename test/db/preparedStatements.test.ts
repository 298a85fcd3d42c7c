// Prisma's statements run as named prepared statements on both database kinds
// (src/db/client.ts, src/db/preparedPglite.ts): parsed once per connection, with
// errors, transactions and rollbacks behaving as with unnamed statements.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { preparedStatementNames } from '../../src/db/database.ts';
import { withPreparedStatements } from '../../src/db/preparedPglite.ts';
import { createStore } from '../../src/domain/stores.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { createTestDatabase } from '../support/db.ts';

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());

/** The prepared statements of the connection that runs this statement (PGlite has one). */
async function preparedOnThisConnection(tx: Prisma.TransactionClient): Promise<string[]> {
  const rows = await tx.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'p\\_%'`);
  return rows.map((r) => r.name);
}

describe('prepared statements', () => {
  it('names a statement text once and stops naming new texts past the limit', () => {
    const nameOf = preparedStatementNames(2);
    const first = nameOf({ sql: 'SELECT 1' });
    expect(first).toMatch(/^p_[\w-]{27}$/);
    expect(nameOf({ sql: 'SELECT 1' })).toBe(first);
    expect(nameOf({ sql: 'SELECT 2' })).not.toBe(first);
    expect(nameOf({ sql: 'SELECT 3' })).toBe('');
    expect(nameOf({ sql: 'SELECT 1' })).toBe(first);
  });

  it("runs Prisma's statements as named statements, read back with the same values each time", async () => {
    const { id } = await createStore(db.prisma, { name: 'Prepared' });
    const reads = await Promise.all([1, 2, 3].map(() => db.prisma.store.findUniqueOrThrow({ where: { id } })));
    expect(reads.map((r) => r.name)).toEqual(['Prepared', 'Prepared', 'Prepared']);
    const prepared = await db.prisma.$transaction(async (tx) => {
      await tx.store.findUniqueOrThrow({ where: { id } });
      return preparedOnThisConnection(tx);
    });
    expect(prepared.length).toBeGreaterThan(0);
  });

  it('keeps Prisma errors as they were: a unique violation is still P2002, and the session goes on', async () => {
    const { id } = await createStore(db.prisma, { name: 'Unique' });
    const create = (suffix: string) => db.prisma.location.create({ data: { id: `loc_dup_${id}${suffix}`, storeId: id, name: 'Twice' } });
    await create('');
    const error = await create('').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((error as Prisma.PrismaClientKnownRequestError).code).toBe('P2002');
    // The failed statement's own text runs again, and so does the rest.
    await create('_2');
    expect(await db.prisma.location.count({ where: { storeId: id, name: 'Twice' } })).toBe(2);
  });

  it('rolls a transaction back whole, and the statements it prepared work afterwards', async () => {
    const { id } = await createStore(db.prisma, { name: 'Rollback' });
    const rename = (tx: Prisma.TransactionClient, name: string) => tx.store.update({ where: { id }, data: { name } });
    await expect(
      db.prisma.$transaction(async (tx) => {
        await rename(tx, 'Changed');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect((await db.prisma.store.findUniqueOrThrow({ where: { id } })).name).toBe('Rollback');
    await db.prisma.$transaction((tx) => rename(tx, 'Kept'));
    expect((await db.prisma.store.findUniqueOrThrow({ where: { id } })).name).toBe('Kept');
  });

  it('on PGlite, runs the statements it does not name through the same scope, also inside a transaction', async () => {
    const pglite = new PGlite();
    try {
      const view = withPreparedStatements(pglite, ({ sql }) => (sql.includes('named') ? 'p_named' : ''));
      await view.exec('CREATE TABLE t (id int PRIMARY KEY, note text)');
      const inserted = await view.transaction(async (tx) => {
        await tx.query(`INSERT INTO t VALUES ($1, 'named')`, [1]);
        await tx.query(`INSERT INTO t VALUES ($1, 'unnamed')`, [2]);
        return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0].n;
      });
      expect(inserted).toBe(2);
      await expect(view.query(`INSERT INTO t VALUES ($1, 'named')`, [1])).rejects.toThrow(/duplicate key/);
      expect((await view.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map((r) => r.name)).toEqual(['p_named']);
    } finally {
      await pglite.close();
    }
  });

  it('on PGlite, a named statement outside a transaction waits for an open one instead of joining it', async () => {
    const pglite = new PGlite();
    try {
      const view = withPreparedStatements(pglite, ({ sql }) => (sql.includes('named') ? 'p_named' : ''));
      await view.exec('CREATE TABLE t (id int PRIMARY KEY, note text)');
      let outside: Promise<unknown> | undefined;
      await expect(
        view.transaction(async (tx) => {
          await tx.query(`INSERT INTO t VALUES (1, 'inside')`);
          outside = view.query(`INSERT INTO t VALUES ($1, 'named')`, [2]);
          // Give the outside statement every chance to run before the transaction ends.
          await new Promise((resolve) => setTimeout(resolve, 50));
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      await outside;
      expect((await view.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id)).toEqual([2]);
    } finally {
      await pglite.close();
    }
  });
});
