// What a request costs above the database. The bench serves a variant on a copy of the
// database handle whose reader (`db.reads`, the one path every resolver reads through)
// answers each read from memory after running it once (keyed by model, method and
// arguments), so a repeated request reads nothing and pays only for HTTP, authentication,
// GraphQL execution and shaping. No change to how data is read can make the real request
// cheaper than that, so that variant's figure bounds what any data-layer work could reach
// against the bench's SQL floor. The key costs one JSON.stringify of each read's arguments,
// which the real request does not pay: the bound errs a little on the strict side.
import type { Database } from '../src/db/database.ts';
import type { Reads } from '../src/db/reads/reader.ts';

type Delegate = Record<string, (args?: unknown) => Promise<unknown>>;

export function withReadsInMemory(db: Database): Database {
  const answers = new Map<string, Promise<unknown>>();
  const reads = Object.fromEntries(
    Object.entries(db.reads as unknown as Record<string, Delegate>).map(([model, delegate]) => [
      model,
      Object.fromEntries(
        Object.entries(delegate).map(([method, read]) => [
          method,
          (args?: unknown) => {
            const key = `${model} ${method} ${JSON.stringify(args)}`;
            let answer = answers.get(key);
            if (!answer) {
              answer = read(args);
              answers.set(key, answer);
            }
            // Rows are shared between requests; resolvers only read them.
            return answer;
          },
        ]),
      ),
    ]),
  ) as unknown as Reads;
  return { ...db, reads };
}
