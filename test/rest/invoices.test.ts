// Invoices: coverage premiums and per-return fees grouped by calendar month, the list's
// charge equal to the sum of the CSV's items to the cent (parsed back with csv-parse),
// RFC 4180 quoting and formula-safe cells, cross-store and scope refusals.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder } from '../../src/domain/orders.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { chargeInvoiceItem } from '../../src/domain/invoices.ts';
import { Decimal } from '../../src/domain/money.ts';
import { CSV_HEADER } from '../../src/rest/routes/invoices.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;
let coverageId: string;

type Invoice = { id: string; status: string; charge: { amount: string; currency: string }; store: { id: string }; createdAt: string; updatedAt: string };
type Row = Record<(typeof CSV_HEADER)[number], string>;

const FORMULA_TEXTS = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1:A2)', '\tcmd', '\rcmd'];
const QUOTED_TEXT = 'a, "quoted"\nsecond line';

async function invoices(secret = store.secret, storeId = store.storeId) {
  return call(server, 'GET', `/v2.2/stores/${storeId}/invoices`, { secret });
}

function parseCsv(text: string): Row[] {
  const records = parse(text, { columns: true, skip_empty_lines: true, relax_quotes: false }) as Row[];
  const header = parse(text, { to_line: 1 }) as string[][];
  expect(header[0]).toEqual([...CSV_HEADER]);
  return records;
}

const sumOf = (rows: Row[]) => rows.reduce((sum, row) => sum.plus(row.amount), new Decimal(0)).toFixed(2);

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
  const coverage = await graphql(server, store.secret, `mutation { coverageSettingsUpdate(input: { type: SHIPPING_FAILURE, enabled: true, title: "=cmd|' /C calc'!A0", percentage: "5", minimumPrice: "1", maximumPrice: "9" }) { coverageProduct { id } } }`);
  coverageId = (coverage.data?.coverageSettingsUpdate as { coverageProduct: { id: string } }).coverageProduct.id;
  const fee = await graphql(server, store.secret, 'mutation { billingSettingsUpdate(input: { returnProcessingFee: "2.35" }) { billingSettings { returnProcessingFee { amount currency } } userErrors { message } } }');
  expect(fee.data?.billingSettingsUpdate).toEqual({ billingSettings: { returnProcessingFee: { amount: '2.35', currency: 'USD' } }, userErrors: [] });

  const order = await createOrder(server.db.prisma, store.storeId, {
    orderId: 'inv-1',
    createdAt: new Date().toISOString(),
    lineItems: [
      { id: 'a', productId: 'hat', title: 'Hat', quantity: 1, price: 40 },
      { id: 'b', productId: coverageId, title: 'Protection', quantity: 3, price: 3.33 },
    ],
  });
  await createOrder(server.db.prisma, store.storeId, {
    orderId: 'inv-2',
    createdAt: new Date().toISOString(),
    lineItems: [{ id: 'c', productId: coverageId, title: 'Protection', quantity: 1, price: 0.01 }],
  });
  await createReturn(server.db.prisma, store.storeId, { orderId: order.id, items: [{ lineItemId: 'a', quantity: 1 }] });
  // A past month, written as the sale of that month would have written it.
  await server.db.prisma.$transaction(async (tx) => {
    for (const [i, description] of [...FORMULA_TEXTS, QUOTED_TEXT].entries()) {
      await chargeInvoiceItem(tx, {
        storeId: store.storeId,
        currency: 'USD',
        kind: 'COVERAGE_PREMIUM',
        description,
        subjectId: `ord_past${i}`,
        amount: new Decimal('0.10').plus(i),
        occurredAt: new Date(Date.UTC(2026, 9, 31, 23, 59, 59)),
      });
    }
  });
});
afterAll(async () => server?.close());

describe('invoices', () => {
  it('lists one invoice per month, newest first, the current month pending', async () => {
    const res = await invoices();
    expect(res.status).toBe(200);
    const list = (res.body as { invoices: Invoice[] }).invoices;
    expect(list.map((i) => i.status)).toEqual(['pending', 'issued']);
    expect(list.every((i) => i.store.id === store.storeId)).toBe(true);
    // 9.99 + 0.01 of coverage, 2.35 for the return.
    expect(list[0].charge).toEqual({ amount: '12.35', currency: 'USD' });
    // 0.10 + 1.10 + ... + 6.10
    expect(list[1].charge).toEqual({ amount: '21.70', currency: 'USD' });
  });

  it('serves each invoice as CSV whose items add up to its charge to the cent', async () => {
    const list = ((await invoices()).body as { invoices: Invoice[] }).invoices;
    for (const invoice of list) {
      const res = await call(server, 'GET', `/v2.2/invoices/${invoice.id}/items.csv`, { secret: store.secret });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.text.endsWith('\r\n')).toBe(true);
      const rows = parseCsv(res.text);
      expect(rows.every((r) => r.invoice_id === invoice.id)).toBe(true);
      expect(sumOf(rows)).toBe(invoice.charge.amount);
    }
    const pending = await call(server, 'GET', '/v2.2/invoices/pending/items.csv', { secret: store.secret });
    expect(pending.status).toBe(200);
    const rows = parseCsv(pending.text);
    expect(rows.map((r) => [r.kind, r.amount]).sort()).toEqual([
      ['coverage_premium', '0.01'],
      ['coverage_premium', '9.99'],
      ['return_processing_fee', '2.35'],
    ]);
    expect(sumOf(rows)).toBe(list[0].charge.amount);
  });

  it('quotes per RFC 4180 and defuses cells a spreadsheet would run as formulas', async () => {
    const list = ((await invoices()).body as { invoices: Invoice[] }).invoices;
    const past = await call(server, 'GET', `/v2.2/invoices/${list[1].id}/items.csv`, { secret: store.secret });
    const descriptions = parseCsv(past.text).map((r) => r.description);
    expect(descriptions.sort()).toEqual([...FORMULA_TEXTS.map((t) => `'${t}`), QUOTED_TEXT].sort());
    expect(past.text).toContain('"a, ""quoted""\nsecond line"');
    const pending = parseCsv((await call(server, 'GET', '/v2.2/invoices/pending/items.csv', { secret: store.secret })).text);
    expect(pending.filter((r) => r.kind === 'coverage_premium').every((r) => r.description.startsWith("'=cmd|"))).toBe(true);
  });

  it("refuses another store's invoices and callers without invoices_read", async () => {
    const list = ((await invoices()).body as { invoices: Invoice[] }).invoices;
    const foreign = await call(server, 'GET', `/v2.2/invoices/${list[0].id}/items.csv`, { secret: other.secret });
    expect(foreign.status).toBe(404);
    expect((await invoices(other.secret, store.storeId)).status).toBe(403);
    const empty = await call(server, 'GET', '/v2.2/invoices/pending/items.csv', { secret: other.secret });
    expect(parseCsv(empty.text)).toEqual([]);
    expect(((await invoices(other.secret, other.storeId)).body as { invoices: Invoice[] }).invoices).toEqual([]);

    const noScope = await addApiClient(server.db, store.storeId, ['orders_read', 'returns_write']);
    expect((await invoices(noScope.secret)).status).toBe(403);
    expect((await call(server, 'GET', `/v2.2/invoices/${list[0].id}/items.csv`, { secret: noScope.secret })).status).toBe(403);
    expect((await call(server, 'GET', '/v2.2/invoices/pending/items.csv', { secret: noScope.secret })).status).toBe(403);
    expect((await call(server, 'GET', '/v2.2/invoices/pending/items.csv')).status).toBe(401);
    const v3 = await graphql(server, noScope.secret, '{ invoices { id } }');
    expect(v3.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it('charges the fee in force when the return was made, and refuses a bad fee', async () => {
    const bad = await graphql(server, store.secret, 'mutation { billingSettingsUpdate(input: { returnProcessingFee: "-1" }) { billingSettings { returnProcessingFee { amount } } userErrors { code field } } }');
    expect(bad.data?.billingSettingsUpdate).toEqual({ billingSettings: null, userErrors: [{ code: 'INVALID', field: ['input', 'returnProcessingFee'] }] });
    await graphql(server, store.secret, 'mutation { billingSettingsUpdate(input: { returnProcessingFee: "0" }) { userErrors { message } } }');
    const before = ((await invoices()).body as { invoices: Invoice[] }).invoices[0].charge.amount;
    const order = await createOrder(server.db.prisma, store.storeId, { orderId: 'inv-3', createdAt: new Date().toISOString(), lineItems: [{ id: 'a', productId: 'hat', title: 'Hat', quantity: 1, price: 5 }] });
    await createReturn(server.db.prisma, store.storeId, { orderId: order.id, items: [{ lineItemId: 'a', quantity: 1 }] });
    expect(((await invoices()).body as { invoices: Invoice[] }).invoices[0].charge.amount).toBe(before);
  });
});
