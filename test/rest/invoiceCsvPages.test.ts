// The invoice CSVs are streamed page by page: over several pages, with runs of equal
// occurredAt across the page boundaries and (pending) several invoices one after the other,
// they hold exactly the rows of the invoices' items as v3 answers them whole.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_HEADER } from '../../src/rest/routes/invoices.ts';
import { WHOLE_CONNECTION_PAGE_SIZE } from '../../src/schema/connectionPages.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;

const ITEMS = 2 * WHOLE_CONNECTION_PAGE_SIZE + 37;

function monthStart(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).toISOString();
}

/** An invoice of the store with `ITEMS` items, five distinct occurredAt among them. */
async function insertInvoice(id: string, month: string, currency: string): Promise<void> {
  await server.db.sql.query(`INSERT INTO "Invoice" ("id", "storeId", "month", "currency", "updatedAt") VALUES ($1, $2, $3::timestamp, $4, now())`, [
    id,
    store.storeId,
    month,
    currency,
  ]);
  await server.db.sql.query(
    `INSERT INTO "InvoiceItem" ("id", "invoiceId", "kind", "description", "subjectId", "amount", "occurredAt")
     SELECT 'ini_' || $1 || '_' || g, $1, 'RETURN_PROCESSING_FEE', 'Return, "fee" ' || g, 'ret_' || g, 2.35, $2::timestamp + (g % 5) * interval '1 second'
     FROM generate_series(1, $3) AS g`,
    [id, month, ITEMS],
  );
}

/** The CSV rows of an invoice's items as v3's `invoice { items }` answers them. */
async function rowsOf(id: string): Promise<string[][]> {
  const res = await graphql(server, store.secret, 'query($id: ID!) { invoice(id: $id) { id month items { id kind description subjectId occurredAt amount { amount currency } } } }', { id });
  const invoice = res.data!.invoice as {
    id: string;
    month: string;
    items: { id: string; kind: string; description: string; subjectId: string; occurredAt: string; amount: { amount: string; currency: string } }[];
  };
  return invoice.items.map((item) => [invoice.id, invoice.month, item.id, item.occurredAt, item.kind.toLowerCase(), item.description, item.subjectId, item.amount.amount, item.amount.currency]);
}

function parseCsv(text: string): string[][] {
  const [header, ...rows] = parse(text) as string[][];
  expect(header).toEqual([...CSV_HEADER]);
  return rows;
}

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  const current = monthStart(new Date());
  await insertInvoice('inv_pages_past', '2026-02-01T00:00:00.000Z', 'USD');
  await insertInvoice('inv_pages_eur', current, 'EUR');
  await insertInvoice('inv_pages_usd', current, 'USD');
});
afterAll(async () => server?.close());

describe('invoice CSVs over several pages', () => {
  it("answers an invoice's items as v3 lists them, one row each", async () => {
    const res = await call(server, 'GET', '/v2.2/invoices/inv_pages_past/items.csv', { secret: store.secret });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="invoice-inv_pages_past.csv"');
    const rows = parseCsv(res.text);
    expect(rows).toHaveLength(ITEMS);
    expect(rows).toEqual(await rowsOf('inv_pages_past'));
  });

  it("answers the pending invoices' items one invoice after the other, by currency", async () => {
    const res = await call(server, 'GET', '/v2.2/invoices/pending/items.csv', { secret: store.secret });
    expect(res.status).toBe(200);
    expect(parseCsv(res.text)).toEqual([...(await rowsOf('inv_pages_eur')), ...(await rowsOf('inv_pages_usd'))]);
  });
});
