// Return lists: their filters, counts per status and pages.
import { Prisma, ReturnStatus as RETURN_STATUSES, type ReturnStatus } from '../../generated/prisma/client.ts';
import { searchWhere } from '../search/kinds.ts';
import type { Reads } from '../../db/reads/reader.ts';
import type { Db, Tx } from '../tx.ts';
import { REACHABLE_STATUSES } from './status.ts';

export interface ReturnListFilters {
  statuses?: readonly ReturnStatus[] | null;
  /** Inclusive. */
  updatedAtMin?: Date | null;
  /** Exclusive. */
  updatedAtMax?: Date | null;
  /** Inclusive. */
  createdAtMin?: Date | null;
  /** Exclusive. */
  createdAtMax?: Date | null;
  orderName?: string | null;
  /** The search syntax of src/domain/search. */
  query?: string | null;
}

function range(min: Date | null | undefined, max: Date | null | undefined): Prisma.DateTimeFilter | undefined {
  if (!min && !max) return undefined;
  return { ...(min ? { gte: min } : {}), ...(max ? { lt: max } : {}) };
}

export function returnListWhere(storeId: string, filters: ReturnListFilters): Prisma.ReturnWhereInput {
  const where: Prisma.ReturnWhereInput = { storeId };
  if (filters.statuses && filters.statuses.length > 0) where.status = { in: [...filters.statuses] };
  const updatedAt = range(filters.updatedAtMin, filters.updatedAtMax);
  if (updatedAt) where.updatedAt = updatedAt;
  const createdAt = range(filters.createdAtMin, filters.createdAtMax);
  if (createdAt) where.createdAt = createdAt;
  // The store too, so the order is found by its (storeId, name) index.
  if (filters.orderName) where.order = { storeId, name: filters.orderName };
  const search = searchWhere<Prisma.ReturnWhereInput>('returns', storeId, filters.query);
  return search ? { AND: [where, search] } : where;
}

/** A selection for the rows a list hands back (plugin-prisma plans it from the GraphQL query). */
export interface RowQuery {
  select?: Prisma.ReturnSelect;
  include?: Prisma.ReturnInclude;
}

/** One page of a keyset walk: the cursor condition, the order and the size. */
export interface ReturnPage {
  where: Prisma.ReturnWhereInput;
  orderBy: Prisma.ReturnOrderByWithRelationInput[];
  take: number;
}

/**
 * Every return of a store by status, from the overview's rollup (migration overview_rollups: each
 * write to a return recounts it in its own transaction, per day opened and status), so the tabs of an
 * unfiltered returns queue add up a few thousand rows instead of counting a million returns.
 */
const STATUS_COUNTS_SQL = `
SELECT "key" AS "value", sum("returns")::int AS "count" FROM "ReturnsOverviewRollup"
WHERE "storeId" = $1 AND "figure" = 'status' GROUP BY 1 HAVING sum("returns") <> 0`;

/**
 * How many returns of the store each status holds among those matching the filters but their
 * status (one statement): every reachable status, with 0 when none holds it, then any other
 * status some return is in.
 */
export async function countReturnsByStatus(
  reads: Reads,
  db: Db | Tx,
  storeId: string,
  filters: ReturnListFilters,
): Promise<{ status: ReturnStatus; count: number }[]> {
  const unfiltered = !filters.query && !filters.orderName && !filters.createdAtMin && !filters.createdAtMax && !filters.updatedAtMin && !filters.updatedAtMax;
  const rows = unfiltered
    ? await db.$queryRawUnsafe<{ value: string; count: number }[]>(STATUS_COUNTS_SQL, storeId)
    : await reads.return.countBy('status', { where: returnListWhere(storeId, { ...filters, statuses: null }) });
  const counts = new Map(rows.map((row) => [row.value as ReturnStatus, row.count]));
  const listed = Object.values(RETURN_STATUSES).filter((status) => REACHABLE_STATUSES.includes(status) || counts.has(status));
  return listed.map((status) => ({ status, count: counts.get(status) ?? 0 }));
}

/** The returns of a store matching the filters, one page of them. */
export function listReturns(reads: Reads, storeId: string, filters: ReturnListFilters, page: ReturnPage, query: RowQuery = {}) {
  return reads.return.findMany({ ...query, where: { AND: [returnListWhere(storeId, filters), page.where] }, orderBy: page.orderBy, take: page.take });
}
