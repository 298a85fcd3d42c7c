import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

/** A Prisma client bound to an open transaction. */
export type Tx = Prisma.TransactionClient;

export type Db = PrismaClient;

/**
 * Runs fn in a transaction, or inside the caller's transaction when one is given. A transaction
 * client has `$transaction` too (Prisma 7 nests transactions as savepoints, which the PGlite
 * adapter cannot make), but never `$connect`: that is what tells the two apart.
 */
export function inTransaction<T>(db: Db | Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ('$connect' in db) return db.$transaction(fn, { timeout: 15_000, maxWait: 15_000 });
  return fn(db);
}
