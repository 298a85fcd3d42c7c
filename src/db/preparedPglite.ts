// PGlite runs every `query` as an unnamed statement: parse and plan, in WebAssembly, each
// time. For Prisma's statements, and above all the single-statement writes (the customer
// upsert's CTE), that planning costs more than running them (167 against 608 upserts/s
// measured). This view of a PGlite instance gives Prisma's adapter the same `query`, but
// each statement text is parsed once into a named statement of PGlite's one session and
// then only bound and executed; the rest of PGlite is passed through unchanged.
import { parse, protocol, type PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';

type Query = (sql: string, params?: unknown[], options?: QueryOptions) => Promise<Results<unknown>>;

/** A statement text's prepared-statement name, or '' to run it unnamed. */
export type StatementNamer = (query: { sql: string }) => string;

/** What PGlite exposes for its own `query` and not in its declared interface. */
interface PGliteInternals {
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolStream(message: Uint8Array, options: { syncToFs: boolean }): Promise<Parameters<typeof parse.parseResults>[0]>;
  serializers: Record<number, (value: unknown) => string>;
  parsers: Parameters<typeof parse.parseResults>[1];
}

/**
 * `pglite`, with `query` (also inside `transaction`) running named statements. One view
 * per PGlite instance: its statements live in PGlite's one session, so everything that
 * queries it (Prisma, the raw channel) goes through the same view.
 */
export function withPreparedStatements(pglite: PGlite, nameOf: StatementNamer): PGlite {
  const internals = pglite as unknown as PGliteInternals;
  const prepared = new Map<string, number[]>();
  const run = (message: Uint8Array) => internals.execProtocolStream(message, { syncToFs: false });

  // Unnamed statements go to PGlite's own query of the same scope: inside a transaction,
  // the transaction's (PGlite's top-level query would wait for the transaction to end).
  // A top-level statement waits for any open transaction to end, as PGlite's own query does:
  // holding only the query lock, it could run between another caller's statements, inside
  // that caller's transaction, and be rolled back with it.
  const namedOr = (unnamed: Query, exclusive: <T>(fn: () => Promise<T>) => Promise<T>): Query => async (sql, params = [], options = {}) => {
    const name = nameOf({ sql });
    if (name === '' || options.blob || options.paramTypes) return unnamed(sql, params, options);
    const results = await exclusive(() => internals._runExclusiveQuery(async () => {
      const messages: Awaited<ReturnType<typeof run>> = [];
      try {
        let paramTypes = prepared.get(name);
        if (!paramTypes) {
          messages.push(...(await run(protocol.serialize.parse({ name, text: sql }))));
          paramTypes = parse.parseDescribeStatementResults(await run(protocol.serialize.describe({ type: 'S', name })));
          prepared.set(name, paramTypes);
        }
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serialize = options.serializers?.[paramTypes[i]] ?? internals.serializers[paramTypes[i]];
          return serialize ? serialize(value) : String(value);
        });
        // One call into PostgreSQL for the four messages, as a client pipelines them: each call costs
        // a pass of PGlite's main loop and its own results.
        messages.push(
          ...(await run(
            Buffer.concat([
              protocol.serialize.bind({ statement: name, values: values as string[] }),
              protocol.serialize.describe({ type: 'P' }),
              protocol.serialize.execute({}),
              protocol.serialize.sync(),
            ]),
          )),
        );
      } catch (error) {
        // A failed parse or describe leaves the extended query open until a Sync; after a failed
        // batch, whose own Sync ended it, another one only answers ReadyForQuery.
        await run(protocol.serialize.sync()).catch(() => undefined);
        throw error;
      }
      return parse.parseResults(messages, internals.parsers, options)[0];
    }));
    // As PGlite's own query does: outside a transaction, a statement is written through at once.
    if (!pglite.isInTransaction()) await pglite.syncToFs();
    return results;
  };

  const query = namedOr((sql, params, options) => pglite.query(sql, params, options), (fn) => internals._runExclusiveTransaction(fn));
  const transaction: PGlite['transaction'] = (fn) =>
    pglite.transaction((tx) =>
      fn(Object.create(tx, { query: { value: namedOr((sql, params, options) => tx.query(sql, params, options), (run) => run()) } }) as Transaction),
    );

  return new Proxy(pglite, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
