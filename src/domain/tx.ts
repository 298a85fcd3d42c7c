import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { recordAuditContext } from './audit.ts';

/** A Prisma client bound to an open transaction. */
export type Tx = Prisma.TransactionClient;

export type Db = PrismaClient;

export interface TransactionOptions {
  timeoutMs?: number;
  /**
   * fn's first statement hands auditContext() to the audit triggers itself (a set_config among
   * its columns) before anything is written: the transaction saves the round trip of its own.
   */
  firstStatementNamesActor?: boolean;
}

/**
 * Runs fn in a transaction, or inside the caller's transaction when one is given. A transaction
 * client has `$transaction` too (Prisma 7 nests transactions as savepoints, which the PGlite
 * adapter cannot make), but never `$connect`: that is what tells the two apart. A transaction
 * is given 15 s unless `timeoutMs` says otherwise.
 */
export function inTransaction<T>(db: Db | Tx, fn: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if ('$connect' in db) {
    return db.$transaction(
      async (tx) => {
        // Whoever acts is named to the audit triggers once, as the transaction begins.
        if (!options.firstStatementNamesActor) await recordAuditContext(tx);
        return fn(tx);
      },
      { timeout: options.timeoutMs ?? 15_000, maxWait: 15_000 },
    );
  }
  return fn(db);
}
