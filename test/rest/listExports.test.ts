// The exports at /v3/rest/exports/{list}.csv|.jsonl hold exactly the records their list's
// search finds, in the list's order, however many pages they span: each is compared with the
// ids the list's own v3 connection answers page by page for the same search. Another store's
// records never appear, a missing scope is a 403 before anything is sent, and a cell a
// spreadsheet would read as a formula is written as text.
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedStore } from '../../bench/searchSeed.ts';
import { LIST_EXPORTS, type ListName } from '../../src/exports/listExports.ts';
import { WHOLE_CONNECTION_PAGE_SIZE } from '../../src/schema/connectionPages.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

// More than a few export pages of orders and returns; the audit trail records every row seeded (thousands).
const ORDERS = 3 * WHOLE_CONNECTION_PAGE_SIZE + 41;
const OTHER_ORDERS = 60;

/** The bench's search data (realistic names, amounts, statuses, tags), written with every trigger on, so search documents and audit entries are made as on any write. */
async function seed(storeId: string, tag: string, orders: number): Promise<void> {
  const client = { query: async (sql: string, params?: unknown[]) => ({ rowCount: (await server.db.sql.query(sql, params)).length }) };
  await seedStore(client as unknown as pg.Client, { storeId, tag, size: { orders, customers: Math.ceil(orders / 4), products: 40 }, now: new Date('2026-11-20T00:00:00Z') }, () => undefined);
  await server.db.sql.query(
    `INSERT INTO "Location" ("id", "storeId", "name", "updatedAt") SELECT 'loc_${tag}' || l, $1, 'Warehouse ' || l, now() FROM generate_series(1, 3) AS l`,
    [storeId],
  );
  await server.db.sql.query(
    `INSERT INTO "InventoryLevel" ("id", "storeId", "productId", "locationId", "quantity", "committed", "reserved", "buildable", "createdAt", "updatedAt")
     SELECT 'li_${tag}_' || p."id" || '_' || l."id", $1, p."id", l."id", 10 + length(p."id") % 7, 1, 0, 0,
            timestamp '2026-11-01' + (length(l."name") % 3) * interval '1 hour', timestamp '2026-11-01' + (length(l."name") % 3) * interval '1 hour'
     FROM "Product" AS p CROSS JOIN "Location" AS l WHERE p."storeId" = $1 AND l."storeId" = $1`,
    [storeId],
  );
}

/** The ids the list's v3 connection answers for `args`, following endCursor page by page (100 a page, v3's most). */
async function idsOfList(secret: string, field: string, argumentList: string, variables: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const res = await graphql(server, secret, `query($after: String, ${argumentList}) { ${field}(first: 100, after: $after, ${argumentList.replace(/\$(\w+): [^,]+/g, '$1: $$$1')}) {
      nodes { id } pageInfo { hasNextPage endCursor } } }`, { ...variables, after });
    expect(res.errors).toBeUndefined();
    const connection = res.data![field] as { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    ids.push(...connection.nodes.map((node) => node.id));
    after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  } while (after !== null);
  return ids;
}

function csvRows(text: string, list: ListName): Record<string, string>[] {
  const [header, ...rows] = parse(text, { bom: false }) as string[][];
  const columns = LIST_EXPORTS[list].columns;
  expect(header).toEqual(columns.map((column) => column.header));
  return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column.key, row[i]])));
}

async function exportCsv(list: ListName, parameters: Record<string, string> = {}, secret = store.secret) {
  const res = await call(server, 'GET', `/v3/rest/exports/${list}.csv?${new URLSearchParams(parameters)}`, { secret });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return csvRows(res.text, list);
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { name: 'Exporting store' });
  other = await createTestStore(server.db, { name: 'Other store' });
  await seed(store.storeId, 'a', ORDERS);
  // Seeded alike: the same order names, e-mails and SKUs, so only the store keeps them apart.
  await seed(other.storeId, 'b', OTHER_ORDERS);
}, 300_000);
afterAll(async () => server?.close());

describe('an export holds exactly the rows of its search', () => {
  const ID_COLUMN: Record<ListName, string> = {
    returns: 'return_id',
    orders: 'order_id',
    customers: 'customer_id',
    products: 'product_id',
    'inventory-levels': 'inventory_level_id',
    'audit-entries': 'entry_id',
  };
  const cases: { list: ListName; field: string; search?: string }[] = [
    { list: 'returns', field: 'returns' },
    { list: 'returns', field: 'returns', search: 'status:complete OR tag:exchange-requested' },
    { list: 'orders', field: 'orders' },
    { list: 'orders', field: 'orders', search: 'gmail -tag:vip' },
    { list: 'customers', field: 'customers', search: 'gmail' },
    { list: 'products', field: 'products' },
    { list: 'inventory-levels', field: 'inventoryLevels', search: 'location:"Warehouse 2" OR sku:BLADE' },
  ];
  for (const { list, field, search } of cases) {
    it(`${list}${search ? ` searched for ${search}` : ''}`, async () => {
      const expected = await idsOfList(store.secret, field, '$query: String', { query: search ?? null });
      const rows = await exportCsv(list, search ? { query: search } : {});
      expect(rows.map((row) => row[ID_COLUMN[list]])).toEqual(expected);
      if (list === 'orders' || list === 'returns') expect(expected.length).toBeGreaterThan(search ? 100 : 2 * WHOLE_CONNECTION_PAGE_SIZE);
    });
  }

  it('the audit trail, over many pages, and narrowed to one record', async () => {
    const all = await idsOfList(store.secret, 'auditEntries', '$operation: String', { operation: null });
    expect(all.length).toBeGreaterThan(5 * WHOLE_CONNECTION_PAGE_SIZE);
    expect((await exportCsv('audit-entries')).map((row) => row.entry_id)).toEqual(all);

    const orderId = 'ord_a' + '1'.padStart(19, '0');
    const history = await idsOfList(store.secret, 'auditEntries', '$object: AuditObjectFilter', { object: { kind: 'ORDER', id: orderId } });
    const rows = await exportCsv('audit-entries', { object_kind: 'order', object_id: orderId });
    expect(rows.map((row) => row.entry_id)).toEqual(history);
    // The order and its three lines, each made once.
    expect(rows.map((row) => [row.action, row.object_kind, row.parent_kind]).sort()).toEqual([
      ['insert', 'order', ''],
      ['insert', 'order_line_item', 'order'],
      ['insert', 'order_line_item', 'order'],
      ['insert', 'order_line_item', 'order'],
    ]);
  });

  it('returns of one status tab, oldest first: as the queue lists them', async () => {
    const expected = await idsOfList(store.secret, 'returns', '$status: [ReturnStatus!], $sortKey: ReturnSortKey, $reverse: Boolean', {
      status: ['OPEN', 'FLAGGED'],
      sortKey: 'CREATED_AT',
      reverse: true,
    });
    const res = await call(server, 'GET', '/v3/rest/exports/returns.jsonl?status=open,flagged&sort_key=created_at&reverse=true', { secret: store.secret });
    expect(res.status).toBe(200);
    const lines = res.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => (JSON.parse(line) as { return_id: string }).return_id)).toEqual(expected);
  });
});

describe('what a row says', () => {
  it('an order: human headers, amounts as decimals with their currency, ISO dates, one row per order', async () => {
    const res = await graphql(server, store.secret, `query { orders(first: 1, query: "name:1001") { nodes { id name placedAt updatedAt currency externalId
      submittedCustomer { name email phoneNumber } subtotalPrice { amount } totalTax { amount } totalPrice { amount } totalDiscount { amount } shippingCost { amount }
      lineItems { quantity } tags } } }`);
    type Amount = { amount: string };
    const [order] = (res.data!.orders as { nodes: {
      id: string; name: string; placedAt: string; updatedAt: string; currency: string; externalId: string; tags: string[];
      submittedCustomer: { name: string; email: string; phoneNumber: string };
      subtotalPrice: Amount; totalTax: Amount; totalPrice: Amount; totalDiscount: Amount; shippingCost: Amount;
      lineItems: { quantity: number }[];
    }[] }).nodes;
    const [row] = await exportCsv('orders', { query: 'name:1001' });
    expect(row).toEqual({
      order: '#1001',
      placed_at: order.placedAt,
      customer_name: order.submittedCustomer.name,
      customer_email: order.submittedCustomer.email,
      customer_phone: `'${order.submittedCustomer.phoneNumber}`,
      items: String(order.lineItems.reduce((sum, line) => sum + line.quantity, 0)),
      currency: 'USD',
      subtotal: order.subtotalPrice.amount,
      discount: order.totalDiscount.amount,
      shipping: order.shippingCost.amount,
      tax: order.totalTax.amount,
      total: order.totalPrice.amount,
      tags: order.tags.join(', '),
      updated_at: order.updatedAt,
      merchant_order_id: order.externalId,
      order_id: order.id,
    });
    expect(row.placed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(row.total).toMatch(/^\d+\.\d{2}$/);
  });

  it('the same record in JSON Lines: typed members named by the column keys', async () => {
    const res = await call(server, 'GET', '/v3/rest/exports/orders.jsonl?query=name:1001', { secret: store.secret });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const [line] = res.text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const [csv] = await exportCsv('orders', { query: 'name:1001' });
    expect(Object.keys(line)).toEqual(Object.keys(csv));
    expect(line.items).toBe(Number(csv.items));
    expect(line.total).toBe(csv.total);
    // JSON Lines is no spreadsheet: the phone number is as it is.
    expect(line.customer_phone).toBe(csv.customer_phone.slice(1));
  });

  it('headers: a file name, the media types, the rate limit', async () => {
    const csv = await call(server, 'GET', '/v3/rest/exports/customers.csv?query=gmail', { secret: store.secret });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="customers-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(csv.headers.get('x-ratelimit-limit')).toBeTruthy();
    const jsonl = await call(server, 'GET', '/v3/rest/exports/inventory-levels.jsonl', { secret: store.secret });
    expect(jsonl.headers.get('content-disposition')).toMatch(/^attachment; filename="inventory-levels-\d{4}-\d{2}-\d{2}\.jsonl"$/);
  });
});

describe('CSV cells', () => {
  it('quotes commas, quotes and line breaks, and writes a would-be formula as text', async () => {
    const formulas = ['=HYPERLINK("http://evil.example","click")', '+1+1', '-2+3', '@SUM(A1)', '\tindent', '\rreturn'];
    for (const [i, name] of formulas.entries()) {
      await server.db.sql.query(
        `INSERT INTO "Customer" ("id", "storeId", "email", "firstName", "lastName", "name", "phoneNumbers", "createdAt", "updatedAt")
         VALUES ($1, $2, $3, 'Injected', $4, $5, '{}', now(), now())`,
        [`cus_injection${i}`, store.storeId, `injected${i}@example.com`, 'Comma, "Quoted"\nNext line', name],
      );
    }
    const res = await call(server, 'GET', '/v3/rest/exports/customers.csv?query=first_name:Injected', { secret: store.secret });
    expect(res.text).toContain(`,"'=HYPERLINK(""http://evil.example"",""click"")",`);
    expect(res.text).toContain(`,"Comma, ""Quoted""\nNext line",`);
    const rows = csvRows(res.text, 'customers');
    expect(rows.map((row) => row.name).sort()).toEqual(formulas.map((name) => `'${name}`).sort());
    expect(rows.every((row) => row.last_name === 'Comma, "Quoted"\nNext line')).toBe(true);
  });
});

describe('who may export what', () => {
  it("another store's export holds its own rows only", async () => {
    for (const [list, field] of [['orders', 'orders'], ['returns', 'returns'], ['customers', 'customers'], ['inventory-levels', 'inventoryLevels']] as const) {
      const mine = new Set(await idsOfList(store.secret, field, '$query: String', { query: null }));
      const rows = await exportCsv(list, {}, other.secret);
      const theirs = rows.map((row) => row[`${list === 'inventory-levels' ? 'inventory_level' : list.slice(0, -1)}_id`]);
      expect(theirs).toEqual(await idsOfList(other.secret, field, '$query: String', { query: null }));
      expect(theirs.filter((id) => mine.has(id))).toEqual([]);
    }
    expect((await exportCsv('orders', {}, other.secret)).length).toBe(OTHER_ORDERS);
    const exportingStores = new Set([...(await idsOfList(store.secret, 'orders', '$query: String', { query: null })), ...(await idsOfList(store.secret, 'customers', '$query: String', { query: null }))]);
    const audit = await exportCsv('audit-entries', {}, other.secret);
    expect(audit.length).toBeGreaterThan(OTHER_ORDERS);
    expect(audit.filter((row) => exportingStores.has(row.object_id) || exportingStores.has(row.parent_id))).toEqual([]);
  });

  it('a client without the list\'s scope gets 403 and no rows; no secret, 401', async () => {
    const ordersOnly = await addApiClient(server.db, store.storeId, ['orders_read']);
    for (const list of ['returns', 'customers', 'products', 'inventory-levels', 'audit-entries'] as const) {
      const res = await call(server, 'GET', `/v3/rest/exports/${list}.csv`, { secret: ordersOnly.secret });
      expect(res.status, list).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('content-disposition')).toBeNull();
    }
    expect((await call(server, 'GET', '/v3/rest/exports/orders.csv?query=name:1001', { secret: ordersOnly.secret })).status).toBe(200);
    expect((await call(server, 'GET', '/v3/rest/exports/orders.csv')).status).toBe(401);
  });

  it('a malformed search, an unknown parameter, list or format: 400 or 404 as problem+json', async () => {
    const malformed = await call(server, 'GET', '/v3/rest/exports/orders.csv?query=total:>abc', { secret: store.secret });
    expect(malformed.status).toBe(400);
    expect((malformed.body as { detail: string }).detail).toMatch(/total/);
    const unknown = await call(server, 'GET', '/v3/rest/exports/orders.csv?q=x', { secret: store.secret });
    expect(unknown.status).toBe(400);
    expect((unknown.body as { errors: { path: string }[] }).errors[0].path).toBe('q');
    expect((await call(server, 'GET', '/v3/rest/exports/webhooks.csv', { secret: store.secret })).status).toBe(404);
    expect((await call(server, 'GET', '/v3/rest/exports/orders.xlsx', { secret: store.secret })).status).toBe(404);
    expect((await call(server, 'GET', '/v3/rest/exports/returns.csv?status=nonsense', { secret: store.secret })).status).toBe(400);
    expect((await call(server, 'GET', '/v3/rest/exports/returns.csv?reverse=yes', { secret: store.secret })).status).toBe(400);
  });
});

describe('the API document', () => {
  it('/v3/rest/openapi.json documents each export: parameters, columns, media type, failures', async () => {
    const response = await call(server, 'GET', '/v3/rest/openapi.json');
    type Operation = { parameters: { name: string }[]; description: string; responses: Record<string, { content?: Record<string, unknown>; $ref?: string }> };
    const doc = response.body as { paths: Record<string, { get: Operation }> };
    for (const list of Object.keys(LIST_EXPORTS) as ListName[]) {
      for (const [format, mediaType] of [['csv', 'text/csv; charset=utf-8; header=present'], ['jsonl', 'application/x-ndjson']]) {
        const operation = doc.paths[`/exports/${list}.${format}`]?.get;
        expect(operation, `${list}.${format}`).toBeDefined();
        expect(Object.keys(operation.responses['200'].content!)).toEqual([mediaType]);
        expect(operation.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
        expect(operation.responses).toHaveProperty('304');
        for (const column of LIST_EXPORTS[list].columns) expect(operation.description).toContain(`| ${column.header} | \`${column.key}\` |`);
      }
    }
    expect(doc.paths['/exports/returns.csv'].get.parameters.map((p) => p.name)).toEqual(['query', 'status', 'sort_key', 'reverse', 'If-None-Match']);
    expect(doc.paths['/exports/audit-entries.csv'].get.parameters.map((p) => p.name)).not.toContain('query');
    const validation = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(validation.errors ?? [], JSON.stringify(validation.errors)).toEqual([]);
  });
});
