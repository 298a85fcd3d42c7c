// GET /return/list and GET /reporting/asn: the default window (last 24 hours) and
// states (open, closed, cancelled), each filter, the 120-day limit, the bare array
// versus `paginate=true` with page URLs followed as given, and ASN rows with their
// window edges (from inclusive, to exclusive).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReturnStatus } from '../../src/generated/prisma/client.ts';
import { createTestOrder, insertTestReturn, setReturnTimes, type TestReturn } from '../support/returnFixtures.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { warehouse } from './helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

async function newStore(): Promise<TestStore> {
  return createTestStore(server.db, { scopes: ['returns_read', 'returns_write'] });
}

async function returnAt(store: TestStore, createdAt: Date, options: { status?: ReturnStatus; updatedAt?: Date; lines?: number } = {}): Promise<TestReturn> {
  const order = await createTestOrder(server.db, store.storeId, { lines: Array.from({ length: options.lines ?? 1 }, () => ({})) });
  const ret = await insertTestReturn(server.db, store.storeId, order, { status: options.status });
  await setReturnTimes(server.db, ret.id, { createdAt, updatedAt: options.updatedAt ?? createdAt });
  return ret;
}

type ListedReturn = { id: number; svc_id: string; state: string };

async function listIds(store: TestStore, query = ''): Promise<number[]> {
  const res = await warehouse(server, store.secret, 'GET', `/return/list${query ? `?${query}` : ''}`);
  expect(res.status, query).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return (res.body as ListedReturn[]).map((r) => r.id);
}

const unprocessable = { error: { code: 'UNPROCESSABLE_ENTITY', http_code: 422, message: expect.any(String) } };

describe('list defaults', () => {
  it('answers a bare array of the open, closed and cancelled returns created in the last 24 hours, newest first', async () => {
    const store = await newStore();
    const now = Date.now();
    const open = await returnAt(store, new Date(now - HOUR));
    const transit = await returnAt(store, new Date(now - 2 * HOUR), { status: 'in_transit' });
    const closed = await returnAt(store, new Date(now - 23 * HOUR), { status: 'complete' });
    const cancelled = await returnAt(store, new Date(now - 12 * HOUR), { status: 'rejected' });
    await returnAt(store, new Date(now - 3 * HOUR), { status: 'flagged' });
    await returnAt(store, new Date(now - 4 * HOUR), { status: 'needs_review' });
    await returnAt(store, new Date(now - 5 * HOUR), { status: 'deleted' });
    await returnAt(store, new Date(now - 25 * HOUR));

    expect(await listIds(store)).toEqual([open.number, transit.number, cancelled.number, closed.number]);
    const res = await warehouse(server, store.secret, 'GET', '/return/list');
    const states = Object.fromEntries((res.body as ListedReturn[]).map((r) => [r.id, r.state]));
    expect(states).toEqual({ [open.number]: 'open', [transit.number]: 'open', [closed.number]: 'closed', [cancelled.number]: 'cancelled' });
  });

  it("lists only the caller's store", async () => {
    const mine = await newStore();
    const theirs = await newStore();
    const ret = await returnAt(mine, new Date(Date.now() - HOUR));
    await returnAt(theirs, new Date(Date.now() - HOUR));
    expect(await listIds(mine)).toEqual([ret.number]);
  });
});

describe('list filters', () => {
  it('state picks the platform states, several comma-separated', async () => {
    const store = await newStore();
    const at = (hours: number) => new Date(Date.now() - hours * HOUR);
    const flagged = await returnAt(store, at(1), { status: 'flagged' });
    const inReview = await returnAt(store, at(2), { status: 'in_review' });
    const open = await returnAt(store, at(3), { status: 'delivered' });
    const cancelled = await returnAt(store, at(4), { status: 'rejected' });
    const closed = await returnAt(store, at(5), { status: 'complete' });
    expect(await listIds(store, 'state=review')).toEqual([flagged.number, inReview.number]);
    expect(await listIds(store, 'state=open,cancelled')).toEqual([open.number, cancelled.number]);
    expect(await listIds(store, 'state=closed')).toEqual([closed.number]);
    const bad = await warehouse(server, store.secret, 'GET', '/return/list?state=open,expired');
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(unprocessable);
  });

  it('filter=updated_at windows and orders by the last update instead of creation', async () => {
    const store = await newStore();
    const now = Date.now();
    const oldButTouched = await returnAt(store, new Date(now - 10 * DAY), { updatedAt: new Date(now - HOUR) });
    const newButStale = await returnAt(store, new Date(now - 2 * HOUR), { updatedAt: new Date(now - 2 * HOUR) });
    expect(await listIds(store)).toEqual([newButStale.number]);
    expect(await listIds(store, 'filter=created_at')).toEqual([newButStale.number]);
    expect(await listIds(store, 'filter=updated_at')).toEqual([oldButTouched.number, newButStale.number]);
    const bad = await warehouse(server, store.secret, 'GET', '/return/list?filter=deleted_at');
    expect(bad.status).toBe(422);
  });

  it('from is inclusive and to exclusive; dates mean midnight UTC', async () => {
    const store = await newStore();
    const from = new Date('2026-04-01T00:00:00Z');
    const to = new Date('2026-04-03T00:00:00Z');
    const atFrom = await returnAt(store, from);
    const inside = await returnAt(store, new Date('2026-04-02T08:30:00Z'));
    const lastMs = await returnAt(store, new Date(to.getTime() - 1));
    await returnAt(store, to);
    await returnAt(store, new Date(from.getTime() - 1));
    const expected = [lastMs.number, inside.number, atFrom.number];
    expect(await listIds(store, 'from=2026-04-01&to=2026-04-03')).toEqual(expected);
    expect(await listIds(store, `from=${from.toISOString()}&to=${to.toISOString()}`)).toEqual(expected);
    expect(await listIds(store, 'from=2026-04-01T02:00:00%2B02:00&to=2026-04-03 00:00:00')).toEqual(expected);
    // `to` alone: the 24 hours before it
    expect(await listIds(store, 'to=2026-04-02T08:30:00.001Z')).toEqual([inside.number]);
    expect(await listIds(store, 'to=2026-04-02')).toEqual([atFrom.number]);
  });

  it('refuses a range over 120 days, a reversed range and malformed dates with 422', async () => {
    const store = await newStore();
    expect((await warehouse(server, store.secret, 'GET', '/return/list?from=2026-01-01&to=2026-05-01')).status).toBe(200);
    for (const query of [
      'from=2026-01-01&to=2026-05-01T00:00:00.001Z',
      `from=${new Date(Date.now() - 121 * DAY).toISOString()}`,
      'from=2026-05-01&to=2026-05-01',
      'from=2026-05-02&to=2026-05-01',
      'from=yesterday',
      'to=2026-02-30',
      'from=2026-01-01T25:00:00Z',
    ]) {
      const res = await warehouse(server, store.secret, 'GET', `/return/list?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body).toEqual(unprocessable);
    }
  });
});

describe('list pagination', () => {
  type Page = { returns: ListedReturn[]; nextPageUrl: string | null; previousPageUrl: string | null };

  async function follow(store: TestStore, url: string): Promise<Page> {
    const res = await fetch(url, { headers: { authorization: `Bearer ${store.secret}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as Page;
  }

  it('walks 3+ pages by following nextPageUrl as given, and back with previousPageUrl', async () => {
    const store = await newStore();
    const now = Date.now();
    const made: TestReturn[] = [];
    for (let i = 0; i < 8; i++) made.push(await returnAt(store, new Date(now - (i + 1) * HOUR)));
    const newestFirst = made.map((r) => r.number);

    const first = await warehouse(server, store.secret, 'GET', '/return/list?paginate=true&pageSize=3');
    expect(first.status).toBe(200);
    const page1 = first.body as Page;
    expect(Object.keys(page1)).toEqual(['returns', 'nextPageUrl', 'previousPageUrl']);
    expect(page1.previousPageUrl).toBeNull();
    expect(page1.nextPageUrl).toMatch(new RegExp(`^${server.url}/api/v1/warehouse/return/list\\?`));

    // A return created between pages, newer than the first page, must not shift later pages.
    await returnAt(store, new Date(now - 1000));
    const page2 = await follow(store, page1.nextPageUrl!);
    const page3 = await follow(store, page2.nextPageUrl!);
    expect([page1, page2, page3].map((p) => p.returns.map((r) => r.id))).toEqual([newestFirst.slice(0, 3), newestFirst.slice(3, 6), newestFirst.slice(6)]);
    expect(page3.nextPageUrl).toBeNull();
    expect(page3.previousPageUrl).not.toBeNull();

    const back = await follow(store, page3.previousPageUrl!);
    expect(back.returns.map((r) => r.id)).toEqual(newestFirst.slice(3, 6));
    const backAgain = await follow(store, back.previousPageUrl!);
    expect(backAgain.returns.map((r) => r.id)).toEqual(newestFirst.slice(0, 3));
  });

  it('keeps the window and filters in the page URLs', async () => {
    const store = await newStore();
    for (let i = 0; i < 3; i++) await returnAt(store, new Date(`2026-06-0${i + 1}T10:00:00Z`), { status: 'flagged' });
    await returnAt(store, new Date('2026-06-02T11:00:00Z'));
    const res = await warehouse(server, store.secret, 'GET', '/return/list?paginate=true&pageSize=2&state=review&from=2026-06-01&to=2026-06-05');
    const page = res.body as Page;
    const next = new URL(page.nextPageUrl!);
    expect(Object.fromEntries(next.searchParams)).toMatchObject({
      from: '2026-06-01T00:00:00.000Z',
      to: '2026-06-05T00:00:00.000Z',
      filter: 'created_at',
      state: 'review',
      paginate: 'true',
      pageSize: '2',
    });
    const last = await follow(store, page.nextPageUrl!);
    expect(last.returns.map((r) => r.state)).toEqual(['review']);
    expect(last.nextPageUrl).toBeNull();
  });

  it('defaults pageSize to 100, allows up to 750 and refuses others and altered cursors with 422', async () => {
    const store = await newStore();
    await returnAt(store, new Date(Date.now() - HOUR));
    const page = (await warehouse(server, store.secret, 'GET', '/return/list?paginate=true')).body as Page;
    expect(page).toMatchObject({ nextPageUrl: null, previousPageUrl: null });
    expect(page.returns).toHaveLength(1);
    expect((await warehouse(server, store.secret, 'GET', '/return/list?paginate=true&pageSize=750')).status).toBe(200);
    for (const query of ['paginate=true&pageSize=751', 'paginate=true&pageSize=0', 'paginate=true&pageSize=ten', 'paginate=maybe', 'paginate=true&after=abc.def']) {
      const res = await warehouse(server, store.secret, 'GET', `/return/list?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body).toEqual(unprocessable);
    }
  });

  it('without paginate=true answers every return of the window in one array', async () => {
    const store = await newStore();
    for (let i = 0; i < 5; i++) await returnAt(store, new Date(Date.now() - (i + 1) * HOUR));
    expect(await listIds(store, 'pageSize=2')).toHaveLength(5);
  });
});

describe('GET /reporting/asn', () => {
  type Row = Record<string, unknown>;

  it('answers one row per line item of multi-item returns, with the platform fields', async () => {
    const store = await newStore();
    const order = await createTestOrder(server.db, store.storeId, {
      lines: [
        { title: 'Shirt', sku: 'SH-1', price: '30.00' },
        { title: 'Hat', sku: 'HT-1', price: '12.5' },
      ],
      customerEmail: 'asn@example.com',
    });
    const ret = await insertTestReturn(server.db, store.storeId, order);
    const createdAt = new Date('2026-07-01T09:00:00Z');
    await setReturnTimes(server.db, ret.id, { createdAt, updatedAt: createdAt });
    await server.db.prisma.return.update({ where: { id: ret.id }, data: { carrier: 'UPS', trackingNumber: '1Z', labelStatus: 'in_transit', updatedAt: createdAt } });
    const res = await warehouse(server, store.secret, 'GET', '/reporting/asn?from=2026-07-01&to=2026-07-02');
    expect(res.status).toBe(200);
    const common = {
      id: ret.number,
      return_id: ret.id,
      order_id: order.id,
      order_name: order.name,
      state: 'open',
      customer_email: 'asn@example.com',
      barcode: null,
      currency: 'USD',
      carrier: 'UPS',
      tracking_number: '1Z',
      label_status: 'in_transit',
      order_number: order.name.slice(1),
      provider_order_number: order.name.slice(1),
      restock_status: null,
      created_at: '2026-07-01T09:00:00.000Z',
      updated_at: '2026-07-01T09:00:00.000Z',
      closed_at: null,
      integration_tracking_url: null,
      label_url: null,
      return_reason: null,
      outcome: 'refund',
      return_method_rma_code: null,
      scannable_id: null,
      date_delivered: null,
      destination_id: null,
      destination_name: null,
      service: null,
      label_rate: null,
      label_updated_at: null,
      actioned_by: null,
      return_method: null,
      return_method_state: null,
      package_reference: null,
      shipping_box_barcode: null,
      provider_created_at: null,
    };
    expect(res.body).toEqual([
      { ...common, return_line_item_id: ret.itemIds[0], title: 'Shirt', sku: 'SH-1', purchase_price: '30.00' },
      { ...common, return_line_item_id: ret.itemIds[1], title: 'Hat', sku: 'HT-1', purchase_price: '12.50' },
    ]);
    // The documented fields in the page's order (with our return_id), then those this service has no counterpart of.
    expect(Object.keys((res.body as Row[])[0])).toEqual([
      'id', 'return_id', 'return_line_item_id', 'order_id', 'order_name', 'order_number', 'provider_order_number', 'state', 'customer_email',
      'title', 'sku', 'barcode', 'purchase_price', 'carrier', 'label_status', 'tracking_number', 'integration_tracking_url', 'restock_status',
      'currency', 'label_url', 'label_updated_at', 'closed_at', 'updated_at', 'created_at', 'return_reason', 'return_method_rma_code', 'date_delivered', 'outcome',
      'scannable_id', 'destination_id', 'destination_name', 'service', 'label_rate', 'actioned_by', 'return_method',
      'return_method_state', 'package_reference', 'shipping_box_barcode', 'provider_created_at',
    ]);
  });

  it('includes a return created exactly at from and excludes one created exactly at to', async () => {
    const store = await newStore();
    const atFrom = await returnAt(store, new Date('2026-08-10T00:00:00Z'), { lines: 2 });
    const lastMs = await returnAt(store, new Date('2026-08-10T23:59:59.999Z'), { status: 'complete' });
    await returnAt(store, new Date('2026-08-11T00:00:00Z'));
    await returnAt(store, new Date('2026-08-09T23:59:59.999Z'));
    const res = await warehouse(server, store.secret, 'GET', '/reporting/asn?from=2026-08-10&to=2026-08-11');
    const rows = res.body as Row[];
    expect(rows.map((r) => [r.id, r.state])).toEqual([
      [atFrom.number, 'open'],
      [atFrom.number, 'open'],
      [lastMs.number, 'closed'],
    ]);
  });

  it('defaults to the last 24 hours and refuses a range over 120 days', async () => {
    const store = await newStore();
    const recent = await returnAt(store, new Date(Date.now() - HOUR));
    await returnAt(store, new Date(Date.now() - 25 * HOUR));
    const res = await warehouse(server, store.secret, 'GET', '/reporting/asn');
    expect((res.body as Row[]).map((r) => r.id)).toEqual([recent.number]);
    const tooLong = await warehouse(server, store.secret, 'GET', '/reporting/asn?from=2026-01-01&to=2026-06-01');
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toEqual(unprocessable);
  });
});
