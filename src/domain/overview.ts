// The returns overview of a store for a period: what awaits action now (by status and by age),
// returns opened and completed per day, the return rate overall and of the SKUs returned most
// for what was sold, reasons ranked, money refunded, credited and charged per day, and the
// median time from opening to completion. PostgreSQL aggregates every figure (five statements,
// each answering a few dozen rows at most) from rollups the writes keep (migration
// overview_rollups); no record reaches this process.
//
// Definitions (each the set the dashboard's links search, src/domain/search/kinds.ts):
// - days are UTC days; the period is [from, to);
// - needing action: a return in a status it can still be processed from (ALLOWED_FROM.process),
//   aged by whole days since it was opened, as of `now`, whatever the period;
// - opened: returns created in the period, deleted ones left out (as the returns list leaves them);
// - completed: returns complete now whose last change to complete (their closedAt) falls in the
//   period; their refund and store credit count on that day, their open-to-complete time in the median;
// - return rate: units on the items of returns opened in the period (not rejected or deleted, items
//   not removed) over units on the lines of orders placed in the period, by the item's SKU;
// - reasons: units and returns per item reason, over returns opened in the period but deleted ones;
// - fees: the store's RETURN_PROCESSING_FEE invoice items that occurred in the period.
import type { ReturnStatus } from '../generated/prisma/client.ts';
import { Invalid } from './errors.ts';
import { ALLOWED_FROM, REACHABLE_STATUSES } from './returns/status.ts';
import type { Db, Tx } from './tx.ts';

/** Statuses whose returns still await the merchant. */
export const NEEDING_ACTION: readonly ReturnStatus[] = ALLOWED_FROM.process;

/** Longest period one overview covers: a year and a day (a leap year's days, the partial first one). */
export const MAX_OVERVIEW_DAYS = 367;

export type AgeBucket = 'DAYS_0_2' | 'DAYS_3_7' | 'DAYS_8_PLUS';

/** Each bucket's whole days since opening: from `minDays` to `maxDays` (null: no end). */
export const AGE_BUCKETS: readonly { bucket: AgeBucket; minDays: number; maxDays: number | null }[] = [
  { bucket: 'DAYS_0_2', minDays: 0, maxDays: 2 },
  { bucket: 'DAYS_3_7', minDays: 3, maxDays: 7 },
  { bucket: 'DAYS_8_PLUS', minDays: 8, maxDays: null },
];

export interface ReturnsOverview {
  from: Date;
  to: Date;
  now: Date;
  needingAction: {
    total: number;
    byStatus: { status: ReturnStatus; count: number }[];
    byAge: { bucket: AgeBucket; minDays: number; maxDays: number | null; count: number }[];
  };
  /** Every UTC day of the period, oldest first. */
  days: { day: string; opened: number; completed: number }[];
  /** Per currency: the period's sums and every day's (amounts as exact decimal text). */
  amounts: { currency: string; refunded: string; storeCredit: string; fees: string; days: { day: string; refunded: string; storeCredit: string; fees: string }[] }[];
  returnRate: {
    unitsOrdered: number;
    unitsReturned: number;
    /** unitsReturned / unitsOrdered; null when nothing was ordered. */
    rate: number | null;
    /** The ten SKUs sold in the period with the highest rate (returned units first on ties). */
    top: { sku: string; title: string | null; unitsOrdered: number; unitsReturned: number; rate: number }[];
  };
  reasons: { reason: string | null; units: number; returns: number }[];
  completion: { completed: number; medianSeconds: number | null };
}

const DAY_MS = 86_400_000;

function checkPeriod(from: Date, to: Date): void {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new Invalid('from and to must be times', { path: 'from' });
  if (to <= from) throw new Invalid('to must be after from', { path: 'to' });
  if (to.getTime() - from.getTime() > MAX_OVERVIEW_DAYS * DAY_MS) throw new Invalid(`the period is at most ${MAX_OVERVIEW_DAYS} days`, { path: 'to' });
}

// Timestamps are `timestamp(3)` holding UTC: parameters go in as ISO text cast to timestamp
// (the zone suffix is ignored by that cast), so no session time zone is involved.
//
// Where the figures come from (migration overview_rollups): the rollups the writes keep per
// store, figure and UTC day, summed over the period's whole days ($2 to $3, dates); a period
// that starts or ends between midnights has its part-days (two parameters after the others:
// their starts and ends) counted from the rows themselves (each return's ReturnOverviewFact by
// openedAt or closedAt, orders and fees by their time), in the same shape; a period of whole
// days has no such statement part at all. The median comes from ReturnOverviewFact by closedAt.

type Figure = 'status' | 'completed' | 'reason' | 'fee';

/** The part-days as rows e("from", "to"), from the parameters at `partsAt` (starts) and the next (ends). */
const partDayRanges = (partsAt: number) => `unnest($${partsAt}::timestamp[], $${partsAt + 1}::timestamp[]) AS e("from", "to")`;

/**
 * Rows of `figures` (figure, day, key, detail, returns, units, amount, amount2) over the period:
 * the rollups' whole days, and, when `partsAt` numbers the parameter of the part-days' starts
 * (the next one their ends), their own rows. Each lookup of the part-days' rows is a per-row
 * index probe (`OFFSET 0` keeps a LATERAL subquery from being planned as a join of whole tables).
 */
function figureRows(figures: Figure[], partsAt: number | null): string {
  const quoted = (list: Figure[]) => list.map((figure) => `'${figure}'`).join(', ');
  const selects = [
    `SELECT "figure", "day", "key", "detail", "returns", "units", "amount", "amount2" FROM "ReturnsOverviewRollup"
     WHERE "storeId" = $1 AND "figure" IN (${quoted(figures)}) AND "day" >= $2::date AND "day" < $3::date`,
  ];
  if (partsAt === null) return selects.join('\n  UNION ALL\n  ');
  const opened = figures.filter((figure) => figure === 'status' || figure === 'reason');
  if (opened.length > 0) {
    selects.push(`SELECT c."figure", c."day", c."key", c."detail", c."returns", c."units", c."amount", c."amount2"
     FROM ${partDayRanges(partsAt)}
     JOIN "ReturnOverviewFact" AS f ON f."storeId" = $1 AND f."openedAt" >= e."from" AND f."openedAt" < e."to"
     CROSS JOIN LATERAL overview_return_counts(f) AS c WHERE c."figure" IN (${quoted(opened)})`);
  }
  if (figures.includes('completed')) {
    selects.push(`SELECT c."figure", c."day", c."key", c."detail", c."returns", c."units", c."amount", c."amount2"
     FROM ${partDayRanges(partsAt)}
     JOIN "ReturnOverviewFact" AS f ON f."storeId" = $1 AND f."closedAt" >= e."from" AND f."closedAt" < e."to"
     CROSS JOIN LATERAL overview_return_counts(f) AS c WHERE c."figure" = 'completed'`);
  }
  if (figures.includes('fee')) {
    selects.push(`SELECT 'fee', x."occurredAt"::date, i."currency", NULL, 1, 0, x."amount", 0
     FROM ${partDayRanges(partsAt)}
     CROSS JOIN "Invoice" AS i
     CROSS JOIN LATERAL (
       SELECT "occurredAt", "amount" FROM "InvoiceItem"
       WHERE "invoiceId" = i."id" AND "occurredAt" >= e."from" AND "occurredAt" < e."to" AND "kind" = 'RETURN_PROCESSING_FEE' OFFSET 0) AS x
     WHERE i."storeId" = $1`);
  }
  return selects.join('\n  UNION ALL\n  ');
}

/** A statement in its two forms: for a period of whole days, and for one with part-days (their parameters at `partsAt`). */
const withAndWithoutParts = (statement: (partsAt: number | null) => string, partsAt: number) => ({ whole: statement(null), parts: statement(partsAt) });

/**
 * The returns awaiting action, counted by status and age bucket ($2 = now, $3 = statuses): whole
 * days from the rollup, and the two days the bucket limits (now - 3 and now - 8 days) fall in
 * from the returns themselves, by their time.
 */
const NEEDING_ACTION_SQL = `
WITH limits AS (SELECT ($2::timestamp - interval '3 days')::date AS "d3", ($2::timestamp - interval '8 days')::date AS "d8"),
per_day AS (
  SELECT "key" AS "status", "day", sum("returns") AS "n" FROM "ReturnsOverviewRollup"
  WHERE "storeId" = $1 AND "figure" = 'status' AND "key" = ANY($3::text[]) GROUP BY 1, 2
)
SELECT p."status",
       CASE WHEN p."day" > l."d3" THEN 'DAYS_0_2' WHEN p."day" > l."d8" THEN 'DAYS_3_7' ELSE 'DAYS_8_PLUS' END AS "bucket",
       sum(p."n")::int AS "count"
FROM per_day AS p, limits AS l WHERE p."day" <> l."d3" AND p."day" <> l."d8" GROUP BY 1, 2
UNION ALL
SELECT r."status"::text,
       CASE WHEN r."createdAt" > $2::timestamp - interval '3 days' THEN 'DAYS_0_2'
            WHEN r."createdAt" > $2::timestamp - interval '8 days' THEN 'DAYS_3_7'
            ELSE 'DAYS_8_PLUS' END,
       count(*)::int
FROM (
  -- One index range per day (an OR of the two would read every return waiting).
  SELECT "status", "createdAt" FROM "Return"
  WHERE "storeId" = $1 AND "status" = ANY($3::text[]::"ReturnStatus"[])
    AND "createdAt" >= ($2::timestamp - interval '3 days')::date AND "createdAt" < ($2::timestamp - interval '3 days')::date + 1
  UNION ALL
  SELECT "status", "createdAt" FROM "Return"
  WHERE "storeId" = $1 AND "status" = ANY($3::text[]::"ReturnStatus"[])
    AND "createdAt" >= ($2::timestamp - interval '8 days')::date AND "createdAt" < ($2::timestamp - interval '8 days')::date + 1
) AS r
GROUP BY 1, 2`;

const dayText = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;

/** Opened and completed per day and the money per day and currency ($4 from, $5 to). */
const DAYS_SQL = withAndWithoutParts(
  (partsAt) => `
WITH src AS (${figureRows(['status', 'completed', 'fee'], partsAt)}),
opened AS (SELECT "day", sum("returns")::int AS "n" FROM src WHERE "figure" = 'status' AND "key" <> 'deleted' GROUP BY 1),
closed AS (SELECT "day", sum("returns")::int AS "n" FROM src WHERE "figure" = 'completed' GROUP BY 1),
money AS (
  SELECT "day", "key" AS "currency", sum("amount") AS "refunded", sum("amount2") AS "storeCredit", 0::numeric AS "fees"
  FROM src WHERE "figure" = 'completed' GROUP BY 1, 2 HAVING sum("returns") <> 0
  UNION ALL
  SELECT "day", "key", 0, 0, sum("amount") FROM src WHERE "figure" = 'fee' GROUP BY 1, 2 HAVING sum("returns") <> 0
),
money_days AS (
  SELECT "currency", ${dayText('"day"')} AS "day", sum("refunded") AS "refunded", sum("storeCredit") AS "storeCredit", sum("fees") AS "fees" FROM money GROUP BY 1, 2
)
SELECT
  (SELECT coalesce(json_agg(json_build_object('day', ${dayText('d."day"')}, 'opened', coalesce(o."n", 0), 'completed', coalesce(c."n", 0)) ORDER BY d."day"), '[]')
   FROM (SELECT g::date AS "day" FROM generate_series(date_trunc('day', $4::timestamp), $5::timestamp - interval '1 millisecond', interval '1 day') AS g) AS d
   LEFT JOIN opened AS o ON o."day" = d."day" LEFT JOIN closed AS c ON c."day" = d."day") AS "days",
  (SELECT coalesce(json_agg(m ORDER BY m."currency"), '[]')
   FROM (SELECT "currency", sum("refunded")::text AS "refunded", sum("storeCredit")::text AS "storeCredit", sum("fees")::text AS "fees",
                json_agg(json_build_object('day', "day", 'refunded', "refunded"::text, 'storeCredit', "storeCredit"::text, 'fees', "fees"::text) ORDER BY "day") AS "days"
         FROM money_days GROUP BY 1) AS m) AS "amounts",
  (SELECT coalesce(sum("n"), 0)::int FROM closed) AS "completed"`,
  6,
);

/** The median time from opening to completion of the returns completed in the period, exactly, from each one's fact. */
const MEDIAN_SQL = `
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY "openSeconds")::float8 AS "medianSeconds"
FROM "ReturnOverviewFact" WHERE "storeId" = $1 AND "closedAt" >= $2::timestamp AND "closedAt" < $3::timestamp`;

/**
 * The return rate ($4: the days, $5: the Mondays of the weeks, $6: the firsts of the months the
 * whole days are read as, see skuPeriods). Units ordered and returned are summed per SKU alone,
 * in one pass over their rows: the rollups' month rows of the whole months, week rows of the
 * whole weeks around them, day rows of the days left, and the part-days' lines and returns (their
 * lines read once, `part_lines`, for the sums and the titles both). At a million orders a period
 * holds some 50,000 SKUs, so that pass is the statement; nothing else in it may grow with the
 * SKUs. Only the ten SKUs ranked highest then get their title: the least of the titles their
 * lines ordered in the period carry (summed per title first, from the day rows by SKU: a title
 * whose lines were all taken back is no longer one).
 */
const RETURN_RATE_SQL = withAndWithoutParts((partsAt) => {
  // The SKU figures' rows as (SKU, units ordered, units returned): a week or month row holds both.
  const rollup = (figure: string, starts: string) =>
    `SELECT "key", ${figure === 'ordered' ? '"units", 0::bigint' : figure === 'returned' ? '0::bigint, "units"' : '"units", "returns"'} FROM "ReturnsOverviewRollup"
     WHERE "storeId" = $1 AND "figure" = '${figure}' AND "day" = ANY(${starts}::date[])`;
  const units = [rollup('ordered', '$4'), rollup('returned', '$4'), rollup('sku_week', '$5'), rollup('sku_month', '$6')];
  const titled = [
    `SELECT "key", "detail", "returns" FROM "ReturnsOverviewRollup"
     WHERE "storeId" = $1 AND "figure" = 'ordered' AND "key" = ANY(ARRAY(SELECT "sku" FROM top)) AND "day" >= $2::date AND "day" < $3::date`,
  ];
  let parts = '';
  if (partsAt !== null) {
    parts = `part_lines AS MATERIALIZED (
  SELECT l."sku", l."title", l."quantity"
  FROM ${partDayRanges(partsAt)}
  CROSS JOIN LATERAL (SELECT "id" FROM "Order" WHERE "storeId" = $1 AND "placedAt" >= e."from" AND "placedAt" < e."to" OFFSET 0) AS o
  CROSS JOIN LATERAL (SELECT "sku", "title", "quantity" FROM "OrderLineItem" WHERE "orderId" = o."id" OFFSET 0) AS l
),
`;
    units.push(
      `SELECT "sku", "quantity"::bigint, 0::bigint FROM part_lines`,
      `SELECT c."key", 0::bigint, c."units"
     FROM ${partDayRanges(partsAt)}
     JOIN "ReturnOverviewFact" AS f ON f."storeId" = $1 AND f."openedAt" >= e."from" AND f."openedAt" < e."to"
     CROSS JOIN LATERAL overview_return_counts(f) AS c WHERE c."figure" = 'returned'`,
    );
    titled.push(`SELECT "sku", "title", 1 FROM part_lines WHERE "sku" = ANY(ARRAY(SELECT "sku" FROM top))`);
  }
  return `
WITH ${parts}per_sku AS MATERIALIZED (
  SELECT "sku", sum("ordered")::bigint AS "ordered", sum("returned")::bigint AS "returned"
  FROM (
    ${units.join('\n    UNION ALL\n    ')}
  ) AS src("sku", "ordered", "returned")
  GROUP BY 1
),
top AS MATERIALIZED (
  SELECT "sku", "ordered", "returned", "returned"::float8 / "ordered" AS "rate"
  FROM per_sku WHERE "sku" IS NOT NULL AND "ordered" > 0 AND "returned" > 0
  ORDER BY 4 DESC, 3 DESC, 1 LIMIT 10
),
titles AS (
  SELECT "sku", min("title") FILTER (WHERE "lines" <> 0) AS "title"
  FROM (
    SELECT "sku", "title", sum("lines") AS "lines"
    FROM (
    ${titled.join('\n    UNION ALL\n    ')}
    ) AS lines("sku", "title", "lines")
    GROUP BY 1, 2
  ) AS per_title
  GROUP BY 1
)
SELECT (SELECT coalesce(sum("ordered"), 0)::float8 FROM per_sku) AS "unitsOrdered",
       (SELECT coalesce(sum("returned"), 0)::float8 FROM per_sku) AS "unitsReturned",
       (SELECT coalesce(json_agg(json_build_object('sku', t."sku", 'title', n."title", 'unitsOrdered', t."ordered", 'unitsReturned', t."returned", 'rate', t."rate")
                                 ORDER BY t."rate" DESC, t."returned" DESC, t."sku"), '[]')
        FROM top AS t LEFT JOIN titles AS n ON n."sku" = t."sku") AS "top"`;
}, 7);

const REASONS_SQL = withAndWithoutParts(
  (partsAt) => `
WITH src AS (${figureRows(['reason'], partsAt)})
SELECT "key" AS "reason", sum("units")::int AS "units", sum("returns")::int AS "returns"
FROM src GROUP BY 1 HAVING sum("returns") > 0 ORDER BY 2 DESC, 3 DESC, 1 NULLS LAST`,
  4,
);

export interface OverviewDaysRow {
  days: { day: string; opened: number; completed: number }[];
  amounts: ReturnsOverview['amounts'];
  completed: number;
}

export interface OverviewRateRow {
  unitsOrdered: number;
  unitsReturned: number;
  top: ReturnsOverview['returnRate']['top'];
}

/** What the overview's statements answer, before it is shaped. */
export interface OverviewRows {
  waiting: { status: ReturnStatus; bucket: AgeBucket; count: number }[];
  days: OverviewDaysRow;
  rate: OverviewRateRow;
  reasons: ReturnsOverview['reasons'];
  medianSeconds: number | null;
}

/**
 * The overview shaped from its statements' rows. One shape for the rollups' statements and for
 * the tests' count from the records (test/support/overviewOracle.ts), so that those tests
 * compare what the statements counted.
 */
export function overviewFromRows(period: { from: Date; to: Date; now: Date }, rows: OverviewRows): ReturnsOverview {
  const { waiting, days, rate } = rows;
  const countWhere = (keep: (row: (typeof waiting)[number]) => boolean) => waiting.filter(keep).reduce((sum, row) => sum + row.count, 0);
  const unitsOrdered = Number(rate.unitsOrdered);
  const unitsReturned = Number(rate.unitsReturned);
  return {
    ...period,
    needingAction: {
      total: countWhere(() => true),
      // A status no operation leads to is listed only while some return is in it (data from outside), as the returns queue's tabs do.
      byStatus: NEEDING_ACTION.map((status) => ({ status, count: countWhere((row) => row.status === status) })).filter(
        ({ status, count }) => count > 0 || REACHABLE_STATUSES.includes(status),
      ),
      byAge: AGE_BUCKETS.map((age) => ({ ...age, count: countWhere((row) => row.bucket === age.bucket) })),
    },
    days: days.days,
    amounts: days.amounts,
    returnRate: {
      unitsOrdered,
      unitsReturned,
      rate: unitsOrdered > 0 ? unitsReturned / unitsOrdered : null,
      top: rate.top.map((t) => ({ ...t, unitsOrdered: Number(t.unitsOrdered), unitsReturned: Number(t.unitsReturned) })),
    },
    reasons: rows.reasons,
    completion: { completed: days.completed, medianSeconds: rows.medianSeconds },
  };
}

const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * The period's whole UTC days, [wholeFrom, wholeTo) as dates, and the part-days before and after
 * them as [start, end) times (none when the period starts and ends at midnight).
 */
function wholeDays(from: Date, to: Date): { wholeFrom: string; wholeTo: string; parts: [Date, Date][] } {
  const firstMidnight = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const lastMidnight = Math.floor(to.getTime() / DAY_MS) * DAY_MS;
  if (firstMidnight >= lastMidnight) return { wholeFrom: isoDay(firstMidnight), wholeTo: isoDay(firstMidnight), parts: [[from, to]] };
  const parts: [Date, Date][] = [];
  if (from.getTime() < firstMidnight) parts.push([from, new Date(firstMidnight)]);
  if (lastMidnight < to.getTime()) parts.push([new Date(lastMidnight), to]);
  return { wholeFrom: isoDay(firstMidnight), wholeTo: isoDay(lastMidnight), parts };
}

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayList = (from: number, to: number, step: number) => Array.from({ length: Math.max(0, Math.ceil((to - from) / step)) }, (_, i) => isoDay((from + i * step) * DAY_MS));

/**
 * The whole days [wholeFrom, wholeTo) (dates) as the SKU figures' rows cover them: the whole UTC
 * months within, the whole ISO weeks (Monday first, as PostgreSQL's date_trunc('week')) of the
 * days before and after those, and the days left, each as the list of its first days. The fewer
 * and longer the periods, the fewer rows: most SKUs sell in most weeks, few on a given day.
 */
export function skuPeriods(wholeFrom: string, wholeTo: string): { days: string[]; weeks: string[]; months: string[] } {
  const [fromYear, fromMonth, fromDay] = wholeFrom.split('-').map(Number);
  let month = Date.UTC(fromYear, fromMonth - (fromDay === 1 ? 1 : 0), 1) / DAY_MS;
  const months: string[] = [];
  const monthsFrom = month;
  for (;;) {
    const date = new Date(month * DAY_MS);
    const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS;
    if (next > dayNumber(wholeTo)) break;
    months.push(isoDay(month * DAY_MS));
    month = next;
  }
  const [from, to] = [dayNumber(wholeFrom), dayNumber(wholeTo)];
  const segments: [number, number][] = months.length === 0 ? [[from, to]] : [[from, monthsFrom], [month, to]];
  const days: string[] = [];
  const weeks: string[] = [];
  for (const [start, end] of segments) {
    // Day 0 (1970-01-01) was a Thursday: day n is a Monday when (n + 3) % 7 is 0.
    const firstMonday = start + ((7 - ((start + 3) % 7)) % 7);
    const lastMonday = end - ((end + 3) % 7);
    if (firstMonday < lastMonday) {
      days.push(...dayList(start, firstMonday, 1), ...dayList(lastMonday, end, 1));
      weeks.push(...dayList(firstMonday, lastMonday, 7));
    } else {
      days.push(...dayList(start, end, 1));
    }
  }
  return { days, weeks, months };
}

/**
 * Runs the overview's statements in one read transaction with JIT off, room to group in memory
 * and no parallel workers. Their plans are estimated blind (rows of a function, a CTE), past
 * jit_above_cost, and compiling them took 0.1-0.9 s of statements that run in milliseconds; the
 * return rate groups every SKU sold in the period (50,000 at a million orders), which spilled to
 * disk at the default work_mem. Planned parallel, that grouping (estimated at 200 SKUs) became
 * partial hash groupings in two workers whose 117,000 rows were then sorted and merged by SKU:
 * 1.36 s for 90 days where one hash grouping took 0.67 s on the same (loaded) machine, and each
 * worker is a process the request waits to start on a server whose cores serve other requests. One transaction rather than one per statement: taking five connections at once is
 * what waits when the pool is busy, and the statements but one take milliseconds. Inside a
 * caller's transaction the settings would outlive the overview, so there they stay as they are.
 */
function withOverviewSettings<T>(db: Db | Tx, read: (q: Db | Tx) => Promise<T>): Promise<T> {
  if (!('$connect' in db)) return read(db);
  return db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(
        `SELECT set_config('jit', 'off', true), set_config('work_mem', '32MB', true), set_config('max_parallel_workers_per_gather', '0', true)`,
      );
      return read(tx);
    },
    { maxWait: 15_000, timeout: 15_000 },
  );
}

export async function returnsOverview(db: Db | Tx, storeId: string, period: { from: Date; to: Date }, now = new Date()): Promise<ReturnsOverview> {
  const { from, to } = period;
  checkPeriod(from, to);
  const { wholeFrom, wholeTo, parts } = wholeDays(from, to);
  const whole = [storeId, wholeFrom, wholeTo];
  const partDays = parts.length === 0 ? [] : [parts.map(([start]) => start.toISOString()), parts.map(([, end]) => end.toISOString())];
  const form = parts.length === 0 ? 'whole' : 'parts';
  const sku = skuPeriods(wholeFrom, wholeTo);
  const [waiting, [daysRow], [medianRow], [rateRow], reasons] = await withOverviewSettings(db, async (q) => [
    await q.$queryRawUnsafe<{ status: ReturnStatus; bucket: AgeBucket; count: number }[]>(NEEDING_ACTION_SQL, storeId, now.toISOString(), NEEDING_ACTION),
    await q.$queryRawUnsafe<OverviewDaysRow[]>(DAYS_SQL[form], ...whole, from.toISOString(), to.toISOString(), ...partDays),
    await q.$queryRawUnsafe<{ medianSeconds: number | null }[]>(MEDIAN_SQL, storeId, from.toISOString(), to.toISOString()),
    await q.$queryRawUnsafe<OverviewRateRow[]>(RETURN_RATE_SQL[form], ...whole, sku.days, sku.weeks, sku.months, ...partDays),
    await q.$queryRawUnsafe<{ reason: string | null; units: number; returns: number }[]>(REASONS_SQL[form], ...whole, ...partDays),
  ] as const);
  return overviewFromRows({ from, to, now }, { waiting, days: daysRow, rate: rateRow, reasons, medianSeconds: medianRow.medianSeconds });
}

/** Taken for the length of one fold, so two instances never fold at once. */
const FOLD_LOCK = 'returns_overview_rollup_fold';

// One statement, so a reader sees every sum either all before the fold or all after it, the
// same. Only rows of committed transactions are visible to it; a transaction still running keeps
// its rows until the next fold. No writer waits for it: writers only add rows of their own
// transaction, and the folded rows (transactionId 0) are written by folds alone.
const FOLD_SQL = `
WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtext('${FOLD_LOCK}')) AS held),
folded AS (
  DELETE FROM "ReturnsOverviewRollup" r WHERE r."transactionId" <> 0 AND (SELECT held FROM lock)
  RETURNING r."storeId", r."figure", r."day", r."key", r."detail", r."returns", r."units", r."amount", r."amount2"
)
INSERT INTO "ReturnsOverviewRollup" AS r ("storeId", "figure", "day", "key", "detail", "transactionId", "returns", "units", "amount", "amount2")
SELECT "storeId", "figure", "day", "key", "detail", 0, sum("returns"), sum("units"), sum("amount"), sum("amount2")
FROM folded GROUP BY 1, 2, 3, 4, 5
ON CONFLICT ("storeId", "figure", "day", "key", "detail", "transactionId") DO UPDATE
  SET "returns" = r."returns" + excluded."returns", "units" = r."units" + excluded."units",
      "amount" = r."amount" + excluded."amount", "amount2" = r."amount2" + excluded."amount2"`;

/**
 * Folds the overview rollup rows of finished transactions into one row per store, figure, day
 * and key, leaving every sum as it was; answers how many rows it folded into.
 */
export function foldOverviewRollups(db: Db): Promise<number> {
  return db.$executeRawUnsafe(FOLD_SQL);
}
