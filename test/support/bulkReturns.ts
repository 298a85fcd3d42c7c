// Many returns at once, written with set-based SQL (generate_series) straight into the
// tables, for the tests and the benchmark of answers whose size the client decides:
// 100,000 returns take seconds this way, many minutes through the API.
import type { SqlChannel } from '../../src/db/sqlChannel.ts';
import type { ReturnStatus } from '../../src/generated/prisma/client.ts';

export interface BulkReturns {
  /** Returns to write; each has an order of its own. */
  count: number;
  /** Lines per order, each returned once (one return item per line). */
  items: number;
  /** The first return's createdAt (and updatedAt). */
  from: Date;
  /** createdAt of return g (0-based) is `from + (g % distinctTimes) * stepMs`: a small `distinctTimes` makes many ties. */
  stepMs: number;
  distinctTimes?: number;
  /** Cycled through, return by return. */
  statuses?: readonly ReturnStatus[];
  /** Keeps the ids of several batches in one database apart. */
  batch: string;
}

/** Writes the orders, their lines, the returns and their items; the returns are numbered in the order of g. */
export async function insertBulkReturns(sql: SqlChannel, storeId: string, options: BulkReturns): Promise<void> {
  const { count, items, from, stepMs, batch } = options;
  const distinct = options.distinctTimes ?? count;
  const statuses = options.statuses ?? ['open'];
  const at = `($3::timestamp + ((g % ${distinct}) * ${stepMs}) * interval '1 millisecond')`;
  await sql.query(
    `INSERT INTO "Order" ("id", "storeId", "externalId", "name", "placedAt", "currency", "customerEmail", "customerName", "createdAt", "updatedAt")
     SELECT 'ord_' || $1 || '_' || g, $2, $1 || '-' || g, '#' || $1 || g, $3::timestamp, 'USD', 'shopper' || g || '@example.com', 'Sam Shopper', ${at}, ${at}
     FROM generate_series(0, $4 - 1) AS g`,
    [batch, storeId, from.toISOString(), count],
  );
  await sql.query(
    `INSERT INTO "OrderLineItem" ("id", "orderId", "position", "externalId", "externalProductId", "externalVariantId", "title", "quantity", "sku", "price")
     SELECT 'oli_' || $1 || '_' || g || '_' || l, 'ord_' || $1 || '_' || g, l, 'line-' || l, 'product-' || l, 'variant-' || l,
            'Item ' || l || ' of order ' || g, 1, 'SKU-' || l, 25.00 + l
     FROM generate_series(0, $2 - 1) AS g, generate_series(1, $3) AS l`,
    [batch, count, items],
  );
  await sql.query(
    `INSERT INTO "Return" ("id", "storeId", "orderId", "status", "currency", "carrier", "trackingNumber", "labelStatus", "tags", "createdAt", "updatedAt")
     SELECT substr(md5($1 || '_' || g), 1, 24), $2, 'ord_' || $1 || '_' || g, ($5::text[])[1 + g % cardinality($5::text[])]::"ReturnStatus",
            'USD', 'UPS', '1Z' || g, 'in_transit', '{}', ${at}, ${at}
     FROM generate_series(0, $4 - 1) AS g ORDER BY g`,
    [batch, storeId, from.toISOString(), count, statuses],
  );
  await sql.query(
    `INSERT INTO "ReturnItem" ("id", "returnId", "orderLineItemId", "quantity", "reason", "outcome")
     SELECT 'rli_' || $1 || '_' || g || '_' || l, substr(md5($1 || '_' || g), 1, 24), 'oli_' || $1 || '_' || g || '_' || l, 1, 'Too small', 'refund'
     FROM generate_series(0, $2 - 1) AS g, generate_series(1, $3) AS l`,
    [batch, count, items],
  );
}
