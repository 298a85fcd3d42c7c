// One transaction that a whole request's database work joins. A write sent with an
// Idempotency-Key must be stored together with its answer, so the request runs inside a
// transaction that commits only once the answer is known and kept (idempotentRequests.ts).
// Nothing below the door knows about it: the Database's Prisma client and its reads look up
// the joined transaction here and run on it, and a transaction a service opens inside
// becomes a savepoint, so a refused operation still leaves nothing behind while what the
// request did before it stays.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Tx = Prisma.TransactionClient;

interface JoinedTransaction {
  tx: Tx;
  savepoints: number;
  /** False once the transaction has ended: work still running in the request's async context then uses the pool again. */
  open: boolean;
}

const storage = new AsyncLocalStorage<JoinedTransaction>();

/** The open transaction the current request joins, if any. */
export function joinedTransaction(): Tx | undefined {
  const joined = storage.getStore();
  return joined?.open ? joined.tx : undefined;
}

/**
 * Runs fn in a new transaction that every database call made on fn's asynchronous path
 * joins. The transaction commits when fn resolves and rolls back when it throws.
 */
export function inRequestTransaction<T>(prisma: PrismaClient, fn: (tx: Tx) => Promise<T>, options: { timeoutMs: number }): Promise<T> {
  return prisma.$transaction(
    async (tx) => {
      const joined: JoinedTransaction = { tx, savepoints: 0, open: true };
      try {
        return await storage.run(joined, () => fn(tx));
      } finally {
        joined.open = false;
      }
    },
    { timeout: options.timeoutMs, maxWait: options.timeoutMs },
  );
}

async function inSavepoint<T>(joined: JoinedTransaction, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const name = `request_step_${++joined.savepoints}`;
  await joined.tx.$executeRawUnsafe(`SAVEPOINT ${name}`);
  try {
    const result = await fn(joined.tx);
    await joined.tx.$executeRawUnsafe(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await joined.tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
}

/** What stays on the client itself: its lifecycle and its event hooks. */
const CLIENT_OWN = new Set<PropertyKey>(['$connect', '$disconnect', '$on', '$extends']);

/**
 * The client every layer holds: outside a request transaction it is `prisma` itself; inside
 * one, its models and raw queries run on that transaction and its `$transaction` opens a
 * savepoint in it.
 */
export function joiningClient(prisma: PrismaClient): PrismaClient {
  return new Proxy(prisma, {
    get(target, property, receiver) {
      const joined = storage.getStore();
      if (!joined?.open || CLIENT_OWN.has(property)) return Reflect.get(target, property, receiver);
      if (property === '$transaction') {
        return (work: ((tx: Tx) => Promise<unknown>) | Prisma.PrismaPromise<unknown>[]) =>
          inSavepoint(joined, async (tx) => {
            if (typeof work === 'function') return work(tx);
            // A batch's queries were made on this client, so they already run on the transaction; they run in order.
            const results: unknown[] = [];
            for (const query of work) results.push(await query);
            return results;
          });
      }
      const value: unknown = Reflect.get(joined.tx, property);
      return typeof value === 'function' ? value.bind(joined.tx) : value;
    },
  });
}
