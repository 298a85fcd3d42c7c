// A whole connection read through a door: its operation run page after page, each page
// asking for what follows the previous one's endCursor. Connections page by keyset
// (keyset.ts), so a boundary never moves when rows are written between two pages, and
// each page is handed on before the next is read.
import { withoutSearchTimeLimit } from '../db/reads/reader.ts';
import type { GraphQLContext } from './context.ts';
import { runOperation, type Operation, type OperationOutcome } from './execute.ts';

/**
 * Nodes per page when a door reads a whole connection, unless it names another size. Each page is
 * a statement the database plans afresh (5-8 ms for a page of returns), so small pages are slow:
 * the ASN report over 100,000 returns took 36 s at 100 per page, 21 s at 200. But a page's
 * execution and mapping hold the event loop, delaying any request made meanwhile, and in bigger
 * pages more of what a page allocates survives into the old generation, which V8 collects late.
 */
export const WHOLE_CONNECTION_PAGE_SIZE = 200;

export interface ConnectionPage<T> {
  items: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/**
 * Runs `operation` (which takes `$first` and `$after`) until the connection's last page, `size`
 * nodes at a time, yielding the items `page` picks from each page's data. A failure is yielded as
 * it is and ends the walk.
 *
 * Each page runs in a context of its own (the same caller, nothing cached): what the schema's
 * plugins and loaders keep per context object would otherwise hold every page read so far until
 * the walk ends (measured: the live heap grew ~65 MB per 20,000 returns listed).
 *
 * `laterPagesUnlimited`: the pages after the first run free of the search time limit (reader.ts
 * withoutSearchTimeLimit), for a walk whose answer is sent as it is read (an export): the first
 * page, within the limit, is where a search that matches too much is refused.
 */
export async function* connectionPages<Data, T>(
  operation: Operation,
  variables: Record<string, unknown>,
  ctx: GraphQLContext,
  page: (data: Data) => ConnectionPage<T>,
  size = WHOLE_CONNECTION_PAGE_SIZE,
  { laterPagesUnlimited = false }: { laterPagesUnlimited?: boolean } = {},
): AsyncGenerator<OperationOutcome<T[]>, void> {
  let after: string | null = null;
  do {
    const pageContext: GraphQLContext = { ...ctx, cache: new Map() };
    const read = () => runOperation<Data>(operation, { ...variables, first: size, after }, pageContext);
    const outcome: OperationOutcome<Data> = after !== null && laterPagesUnlimited ? await withoutSearchTimeLimit(read) : await read();
    if (!outcome.ok) {
      yield outcome;
      return;
    }
    const { items, pageInfo } = page(outcome.data);
    yield { ok: true, data: items };
    after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
  } while (after !== null);
}
