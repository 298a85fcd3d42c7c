// The floor of order creation (bench/orders.ts): node:http and pg, nothing else, writing what
// the service writes for an order (the order numbered from its store's counter, its group and
// lines, the stock its lines commit with their ledger rows, an event for each level and one
// for the order, their deliveries, and the audit entries the triggers make of the context
// the transaction names) in one statement, the least SQL an order can cost; the order goes in
// with its search document complete, as the service's does, so its lines do not rewrite it. It
// checks no secret and no input: what is left between it and the service is what they cost.
// DATABASE_URL names the database; it prints "listening on <url>" once it listens.
import crypto from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const id = (prefix) => `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;

const ORDER_SQL = `
WITH context AS MATERIALIZED (SELECT set_config('audit.context', $2, true) AS set),
store AS MATERIALIZED (
  SELECT s.* FROM "Store" s, context WHERE s.id = $1
), o AS (
  SELECT * FROM jsonb_populate_record(NULL::"Order", $3::jsonb)
), matched AS MATERIALIZED (
  SELECT x.*, p.id AS product_id, v.id AS level_id
  FROM jsonb_to_recordset($4::jsonb) AS x(id text, position int, "externalId" text, "externalProductId" text, title text, quantity int, sku text, price numeric, adjustment_id text, event_id text)
  LEFT JOIN LATERAL (
    SELECT p.id FROM "Product" p WHERE p."storeId" = $1 AND (p.id = x."externalProductId" OR p.sku = x.sku) ORDER BY p."createdAt", p.id LIMIT 1
  ) p ON true
  LEFT JOIN "InventoryLevel" v ON v."productId" = p.id AND v."locationId" = (SELECT "defaultLocationId" FROM store)
), locked AS MATERIALIZED (
  SELECT v.id FROM "InventoryLevel" v WHERE v.id IN (SELECT level_id FROM matched) ORDER BY v.id FOR UPDATE
), changed AS (
  UPDATE "InventoryLevel" v SET committed = v.committed + m.quantity, "updatedAt" = $7::timestamp(3)
  FROM (SELECT level_id, sum(quantity)::int AS quantity, min(adjustment_id) AS adjustment_id, min(event_id) AS event_id FROM matched WHERE level_id IS NOT NULL GROUP BY level_id) m
  WHERE v.id = m.level_id AND v.id IN (SELECT id FROM locked)
  RETURNING v.*, m.quantity AS delta, m.adjustment_id, m.event_id
), ledger AS (
  INSERT INTO "InventoryAdjustment" (id, "levelId", reason, "referenceId", "committedDelta", "createdAt")
  SELECT adjustment_id, id, 'order', (SELECT id FROM o), delta, $7::timestamp(3) FROM changed
), numbered AS (
  UPDATE "Store" SET "nextOrderNumber" = "nextOrderNumber" + 1, "updatedAt" = $7::timestamp(3) WHERE id = $1 RETURNING '#' || ("nextOrderNumber" - 1) AS name
), inserted AS (
  INSERT INTO "Order" (id, "storeId", "externalId", name, "placedAt", currency, "totalPrice", "customerId", "customerEmail", "customerFirstName", "customerLastName", tags, "createdAt", "updatedAt", "searchText")
  SELECT o.id, $1, o."externalId", numbered.name, o."placedAt", coalesce(o.currency, store.currency), o."totalPrice",
    (SELECT c.id FROM "Customer" c WHERE c."storeId" = $1 AND c.email = o."customerEmail"),
    o."customerEmail", o."customerFirstName", o."customerLastName", coalesce(o.tags, '{}'), $7::timestamp(3), $7::timestamp(3),
    order_search_document_with(jsonb_populate_record(NULL::"Order", $3::jsonb || jsonb_build_object('name', numbered.name)),
      ARRAY(SELECT jsonb_populate_record(NULL::"OrderLineItem", to_jsonb(m)) FROM matched m))
  FROM o, numbered, store
  RETURNING *
), grouped AS (
  INSERT INTO "FulfillmentGroup" (id, "orderId", "locationId", "originName", "originCompany", "originStreet1", "originStreet2", "originCity", "originStateCode", "originPostalCode", "originCountryCode", "originPhone", "createdAt")
  SELECT $5, i.id, s."defaultLocationId", s."originName", s."originCompany", s."originStreet1", s."originStreet2", s."originCity", s."originStateCode", s."originPostalCode", s."originCountryCode", s."originPhone", $7::timestamp(3)
  FROM inserted i, store s
), lined AS (
  INSERT INTO "OrderLineItem" (id, "orderId", "fulfillmentGroupId", position, "externalId", "externalProductId", title, quantity, sku, price, "productId", "committedLevelId", "oversoldQuantity")
  SELECT m.id, i.id, $5, m.position, m."externalId", m."externalProductId", m.title, m.quantity, m.sku, m.price, m.product_id, m.level_id,
    coalesce(least(m.quantity, greatest(0, c.delta - greatest(0, c.quantity - c.committed - c.reserved + c.delta))), 0)
  FROM inserted i, matched m LEFT JOIN changed c ON c.id = m.level_id
), announced AS (
  SELECT event_id AS id, 'inventory_level.updated'::text AS topic, id AS "subjectId", jsonb_build_object(
    'id', id, 'productId', "productId", 'locationId', "locationId", 'quantity', quantity, 'available', quantity - committed - reserved,
    'committed', committed, 'reserved', reserved, 'buildable', buildable, 'updatedAt', $7::text,
    'change', jsonb_build_object('reason', 'order', 'referenceId', (SELECT id FROM o), 'quantityDelta', 0, 'committedDelta', delta, 'reservedDelta', 0, 'buildableDelta', 0)
  ) AS data FROM changed
  UNION ALL
  SELECT $6, 'order.created', i.id, jsonb_build_object(
    'id', i.id, 'name', i.name, 'externalId', i."externalId", 'placedAt', i."placedAt", 'currency', i.currency, 'totalPrice', i."totalPrice"::text,
    'customerId', i."customerId", 'customerEmail', i."customerEmail", 'fulfillmentLocationId', (SELECT "defaultLocationId" FROM store), 'tags', i.tags,
    'lineItems', (SELECT jsonb_agg(jsonb_build_object('id', m.id, 'externalId', m."externalId", 'externalProductId', m."externalProductId", 'productId', m.product_id,
      'title', m.title, 'quantity', m.quantity, 'sku', m.sku, 'price', m.price::text) ORDER BY m.position) FROM matched m),
    'createdAt', i."createdAt")
  FROM inserted i
), recorded AS (
  INSERT INTO "Event" (id, "storeId", topic, "subjectId", data, "createdAt")
  SELECT id, $1, topic, "subjectId", data, now() AT TIME ZONE 'UTC' FROM announced
  RETURNING id, topic, "subjectId"
), enqueued AS (
  INSERT INTO "WebhookDelivery" (id, "eventId", "subscriptionId", "subjectId", "nextAttemptAt", "createdAt")
  SELECT 'dlv_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), r.id, s.id, r."subjectId", now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
  FROM recorded r JOIN "WebhookSubscription" s ON s."storeId" = $1 AND s.enabled AND r.topic = ANY(s.topics)
)
SELECT id, name FROM inserted`;

async function createOrder(storeId, input) {
  const orderId = id('ord');
  const now = new Date().toISOString();
  const order = {
    id: orderId,
    externalId: input.orderId,
    placedAt: input.createdAt,
    currency: input.currency ?? null,
    totalPrice: input.totalPrice ?? null,
    customerEmail: input.customer?.email?.toLowerCase() ?? null,
    customerFirstName: input.customer?.firstName ?? null,
    customerLastName: input.customer?.lastName ?? null,
    tags: input.tags ?? [],
  };
  const lines = input.lineItems.map((line, position) => ({
    id: id('oli'),
    position,
    externalId: line.id,
    externalProductId: line.productId,
    title: line.title,
    quantity: line.quantity,
    sku: line.sku ?? null,
    price: line.price ?? null,
    adjustment_id: id('adj'),
    event_id: id('evt'),
  }));
  const context = JSON.stringify({ actorKind: 'API_CLIENT', actorId: 'floor', actorName: 'floor', door: 'rest', operation: 'createOrder', requestId: crypto.randomUUID(), storeId });
  const { rows } = await pool.query(ORDER_SQL, [storeId, context, JSON.stringify(order), JSON.stringify(lines), id('fg'), id('evt'), now]);
  return rows[0];
}

const PATH = /^\/v2\.2\/stores\/([^/]+)\/orders$/;

const server = http.createServer(async (request, response) => {
  const storeId = request.method === 'POST' ? PATH.exec(request.url)?.[1] : undefined;
  let body = '';
  for await (const chunk of request) body += chunk;
  if (!storeId) {
    response.writeHead(404).end();
    return;
  }
  try {
    const order = await createOrder(storeId, JSON.parse(body));
    response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(order));
  } catch (error) {
    response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error.message));
  }
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
