// What a request costs above the database. The bench serves a variant on a copy of the
// database handle whose Prisma client answers every findMany from memory after running it
// once (keyed by model and arguments), so a repeated request reads nothing and pays only
// for HTTP, authentication, GraphQL execution and shaping. No change to how data is read
// can make the real request cheaper than that, so that variant's figure bounds what any
// data-layer work could reach against the bench's SQL floor. The key costs one
// JSON.stringify of each read's arguments, which the real request does not pay: the bound
// errs a little on the strict side.
//
// A Proxy rather than a Prisma query extension: an extended client answering the v3 deep
// query from memory took a third longer than the plain client patched to do the same, work
// the real request never does.
import type { Database } from '../src/db/client.ts';

type Delegate = { findMany(args?: unknown): Promise<unknown> };

export function withReadsInMemory(db: Database): Database {
  const answers = new Map<string, Promise<unknown>>();
  const delegates = new Map<string, Delegate>();
  const inMemory = (model: string, delegate: Delegate): Delegate =>
    new Proxy(delegate, {
      get(target, method) {
        if (method !== 'findMany') return Reflect.get(target, method);
        return (args?: unknown) => {
          const key = `${model} ${JSON.stringify(args)}`;
          let answer = answers.get(key);
          if (!answer) {
            answer = target.findMany(args);
            answers.set(key, answer);
          }
          // Rows are shared between requests; resolvers only read them.
          return answer;
        };
      },
    });
  const prisma = new Proxy(db.prisma, {
    get(client, name) {
      const value: unknown = Reflect.get(client, name);
      if (typeof name !== 'string' || name.startsWith('$') || typeof value !== 'object' || value === null || !('findMany' in value)) return value;
      let delegate = delegates.get(name);
      if (!delegate) {
        delegate = inMemory(name, value as Delegate);
        delegates.set(name, delegate);
      }
      return delegate;
    },
  });
  return { ...db, prisma };
}
