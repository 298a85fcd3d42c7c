// The returns queue as a merchant triages from it (issue 43): its columns, its orders (served by
// the returns connection's keyset, stable while returns are written), a count on each status tab
// equal to what the records say, deleted returns only on their own tab, only the statuses the
// service can reach; and bulk actions: each return through the one-return operation, a summary
// naming the refused by number, a form sent twice acting once, and the size bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertReturnTag } from '../../src/domain/returnTags.ts';
import { REACHABLE_STATUSES } from '../../src/domain/returns/status.ts';
import type { ReturnStatus } from '../../src/generated/prisma/client.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestOrder, insertTestReturn, type TestReturn } from '../support/returnFixtures.ts';
import { actOnBulkActions, createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { signedIn, type WebClient } from './helpers.ts';

let server: TestServer;
let bulkWorker: ReturnType<typeof actOnBulkActions>;

beforeAll(async () => {
  server = await startTestServer();
  bulkWorker = actOnBulkActions(server);
});
afterAll(async () => server?.close());

const rowIds = (text: string) => [...text.matchAll(/<tr data-return-id="([^"]+)"/g)].map((m) => m[1]);
const decode = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const nextLink = (text: string) => {
  const href = /<a href="([^"]+)" rel="next">/.exec(text)?.[1];
  return href ? decode(href) : undefined;
};
const tabCounts = (text: string) =>
  Object.fromEntries([...text.matchAll(/data-status-tab="([A-Z_]+)">[^<]*<span class="count">(\d+)<\/span>/g)].map((m) => [m[1], Number(m[2])]));
const formKey = (text: string) => /name="key" value="([^"]+)"/.exec(text)![1];
const csrf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)![1];

async function walk(web: WebClient, path: string, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined = path;
  while (next) {
    const page = await web.get(next);
    expect(page.status).toBe(200);
    ids.push(...rowIds(page.text));
    next = nextLink(page.text);
    if (next && between) await between();
  }
  return ids;
}

describe('the returns queue', () => {
  let store: TestStore;
  let web: WebClient;
  const made: (TestReturn & { status: ReturnStatus; createdAt: Date; updatedAt: Date; orderName: string })[] = [];

  beforeAll(async () => {
    store = await createTestStore(server.db, { name: 'Queue Outfitters' });
    web = await signedIn(server, store.storeId);
    const statuses: ReturnStatus[] = ['open', 'open', 'open', 'flagged', 'flagged', 'complete', 'rejected', 'deleted', 'deleted'];
    for (const [i, status] of statuses.entries()) {
      const order = await createTestOrder(server.db, store.storeId, { lines: [{ title: 'Shirt', quantity: 3 }, { title: 'Cap' }] });
      // Ages and last changes in different orders, so each sort is told apart.
      const createdAt = new Date(Date.UTC(2026, 10, 1 + i, 9));
      const updatedAt = new Date(Date.UTC(2026, 10, 20 - ((i * 4) % 9), 9));
      const ret = await insertTestReturn(server.db, store.storeId, order, {
        status,
        createdAt,
        updatedAt,
        items: [{ lineIndex: 0, quantity: 1 + (i % 3), outcome: i % 2 ? 'credit' : 'refund' }, { lineIndex: 1 }],
      });
      await server.db.prisma.returnItem.update({ where: { id: ret.itemIds[0] }, data: { reason: i % 2 ? 'Too small' : 'Changed my mind' } });
      await server.db.sql.query(`UPDATE "Return" SET "updatedAt" = $2 WHERE "id" = $1`, [ret.id, updatedAt]);
      made.push({ ...ret, status, createdAt, updatedAt, orderName: order.name });
    }
  });

  const live = () => made.filter((r) => r.status !== 'deleted');

  it('shows customer, items, reasons, requested outcome, total and age for each return', async () => {
    const page = await web.get('/admin/returns');
    expect(page.status).toBe(200);
    for (const column of ['Customer', 'Items', 'Reasons', 'Requested outcome', 'Total', 'Age', 'Last changed']) expect(page.text).toContain(`<th scope="col">${column}</th>`);
    const first = made[0];
    const row = new RegExp(`<tr data-return-id="${first.id}">(.*?)</tr>`).exec(page.text)![1];
    expect(row).toContain('<td data-label="Customer">Sam Shopper</td>');
    // 1 shirt and 1 cap.
    expect(row).toContain('<td data-label="Items">2</td>');
    expect(row).toContain('<td data-label="Reasons">Changed my mind</td>');
    expect(row).toContain('<td data-label="Requested outcome">refund</td>');
    expect(row).toContain('<td data-label="Total">50.00 USD</td>');
    expect(row).toMatch(/<td data-label="Age"><time datetime="2026-11-01T09:00:00.000Z">\d+ days<\/time><\/td>/);
    const second = new RegExp(`<tr data-return-id="${made[1].id}">(.*?)</tr>`).exec(page.text)![1];
    expect(second).toContain('<td data-label="Items">3</td>');
    expect(second).toContain('<td data-label="Requested outcome">credit, refund</td>');
  });

  it('sorts by age and by last change, both ways, as the records are ordered', async () => {
    const by = (key: 'createdAt' | 'updatedAt', dir: 1 | -1) =>
      [...live()].sort((a, b) => dir * (a[key].getTime() - b[key].getTime()) || dir * a.id.localeCompare(b.id)).map((r) => r.id);
    expect(rowIds((await web.get('/admin/returns?sort=age-desc')).text)).toEqual(by('createdAt', 1));
    expect(rowIds((await web.get('/admin/returns?sort=age-asc')).text)).toEqual(by('createdAt', -1));
    expect(rowIds((await web.get('/admin/returns?sort=updated-asc')).text)).toEqual(by('updatedAt', 1));
    expect(rowIds((await web.get('/admin/returns')).text)).toEqual(by('updatedAt', -1));
    expect(rowIds((await web.get('/admin/returns?sort=updated-desc')).text)).toEqual(by('updatedAt', -1));
    // The choice is kept in the form.
    expect((await web.get('/admin/returns?sort=age-desc')).text).toContain('<option value="age-desc" selected>');
  });

  it('sorts by total both ways, ties by id, as the Total column shows', async () => {
    // Each return holds 1 to 3 shirts and a cap at 25.00: 50.00, 75.00 or 100.00, with ties.
    const total = (r: (typeof made)[number]) => 25 * (1 + (made.indexOf(r) % 3)) + 25;
    const by = (dir: 1 | -1) => [...live()].sort((a, b) => dir * (total(a) - total(b)) || dir * a.id.localeCompare(b.id)).map((r) => r.id);
    const largest = await web.get('/admin/returns?sort=total-desc');
    expect(rowIds(largest.text)).toEqual(by(-1));
    expect(largest.text).toContain('<option value="total-desc" selected>');
    expect([...largest.text.matchAll(/data-label="Total">([\d.]+) USD/g)].map((m) => Number(m[1]))).toEqual(by(-1).map((id) => total(made.find((r) => r.id === id)!)));
    expect(rowIds((await web.get('/admin/returns?sort=total-asc')).text)).toEqual(by(1));
  });

  it('counts each status tab as the records say, for the search typed too', async () => {
    const expected = (rows: typeof made) => {
      const counts: Record<string, number> = { ALL: 0, OPEN: 0, FLAGGED: 0, COMPLETE: 0, REJECTED: 0, DELETED: 0 };
      for (const r of rows) {
        counts[r.status.toUpperCase()]++;
        if (r.status !== 'deleted') counts.ALL++;
      }
      return counts;
    };
    const db = await server.db.prisma.return.groupBy({ by: ['status'], where: { storeId: store.storeId }, _count: true });
    expect(Object.fromEntries(db.map((g) => [g.status.toUpperCase(), g._count]))).toEqual({ OPEN: 3, FLAGGED: 2, COMPLETE: 1, REJECTED: 1, DELETED: 2 });
    expect(tabCounts((await web.get('/admin/returns')).text)).toEqual(expected(made));
    const narrowed = made.filter((r) => [0, 3, 7].includes(made.indexOf(r)));
    const q = narrowed.map((r) => `name:${r.orderName.slice(1)}`).join(' OR ');
    const searched = await web.get(`/admin/returns?q=${encodeURIComponent(q)}`);
    expect(tabCounts(searched.text)).toEqual(expected(narrowed));
    expect(rowIds(searched.text).sort()).toEqual(narrowed.filter((r) => r.status !== 'deleted').map((r) => r.id).sort());
  });

  it('keeps deleted returns out of the list until their tab is chosen', async () => {
    const deleted = made.filter((r) => r.status === 'deleted').map((r) => r.id);
    const all = rowIds((await web.get('/admin/returns')).text);
    expect(all).toHaveLength(7);
    for (const id of deleted) expect(all).not.toContain(id);
    expect(rowIds((await web.get('/admin/returns?status=DELETED')).text).sort()).toEqual([...deleted].sort());
    expect(rowIds((await web.get('/admin/returns?status=FLAGGED')).text).sort()).toEqual(made.filter((r) => r.status === 'flagged').map((r) => r.id).sort());
  });

  it('offers only the statuses an operation of the service leads to', async () => {
    expect(REACHABLE_STATUSES).toEqual(['open', 'flagged', 'complete', 'rejected', 'deleted']);
    const page = await web.get('/admin/returns');
    expect([...page.text.matchAll(/data-status-tab="([A-Z_]+)"/g)].map((m) => m[1])).toEqual(['ALL', 'OPEN', 'FLAGGED', 'COMPLETE', 'REJECTED', 'DELETED']);
    for (const never of ['IN_TRANSIT', 'DELIVERED', 'NEEDS_REVIEW', 'IN_REVIEW']) expect(page.text).not.toContain(never);
    // A status no tab offers is the default list, not an empty one.
    expect(rowIds((await web.get('/admin/returns?status=IN_REVIEW')).text)).toHaveLength(7);
  });
});

describe('walking the queue page by page while returns are written', () => {
  it('sees every return once, in order, though returns are added and changed between pages', async () => {
    const store = await createTestStore(server.db, { name: 'Paging Outfitters' });
    const web = await signedIn(server, store.storeId);
    await insertBulkReturns(server.db.sql, store.storeId, { count: 70, items: 1, from: new Date('2026-10-01T00:00:00Z'), stepMs: 60_000, distinctTimes: 35, batch: 'walk' });
    const before = await server.db.prisma.return.findMany({ where: { storeId: store.storeId }, select: { id: true, createdAt: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    let added = 0;
    const walked = await walk(web, '/admin/returns?sort=age-desc', async () => {
      // Newer returns arrive, and returns already seen change (their updatedAt moves).
      await insertBulkReturns(server.db.sql, store.storeId, { count: 3, items: 1, from: new Date('2026-11-20T00:00:00Z'), stepMs: 1000, batch: `late${added++}` });
      await server.db.sql.query(`UPDATE "Return" SET "updatedAt" = now() WHERE "id" = $1`, [before[0].id]);
    });
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked.slice(0, 70)).toEqual(before.map((r) => r.id));
    expect(walked).toHaveLength(70 + 3 * added);
  });
});

describe('bulk actions on the returns list', () => {
  let store: TestStore;
  let web: WebClient;

  beforeAll(async () => {
    store = await createTestStore(server.db, { name: 'Bulk Outfitters' });
    web = await signedIn(server, store.storeId);
  });

  async function newReturn(status: ReturnStatus = 'open') {
    return insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId), { status });
  }

  it('processes the chosen returns one by one, names the refused by number, and acts once when the form is sent twice', async () => {
    const open = [await newReturn(), await newReturn()];
    const complete = await newReturn('complete');
    const deleted = await newReturn('deleted');
    const list = await web.get('/admin/returns');
    const form = { csrf: csrf(list.text), key: formKey(list.text), scope: 'chosen', action: 'PROCESS', id: [...open, complete, deleted].map((r) => r.id) };
    const first = await web.post('/admin/returns/bulk', form);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`/admin/returns/bulk/${form.key}`);
    const summary = await web.get(first.headers.get('location')!);
    expect(summary.status).toBe(200);
    expect(decode(summary.text)).toContain(
      `2 processed, 2 refused: return #${complete.number} is complete: process is not allowed in that status; return #${deleted.number} is deleted: process is not allowed in that status.`,
    );
    expect(summary.text).toContain(`<a href="/admin/returns/${complete.id}">#${complete.number}</a>`);
    const statuses = await server.db.prisma.return.findMany({ where: { id: { in: open.map((r) => r.id) } }, select: { status: true } });
    expect(statuses.map((s) => s.status)).toEqual(['complete', 'complete']);

    // The same form again (a double click, a resubmitted page): nothing more happens, the first summary shows.
    const again = await web.post('/admin/returns/bulk', form);
    expect(again.headers.get('location')).toBe(`/admin/returns/bulk/${form.key}`);
    expect(decode((await web.get(again.headers.get('location')!)).text)).toContain('2 processed, 2 refused');
    const changes = await server.db.prisma.returnStatusChange.count({ where: { returnId: { in: open.map((r) => r.id) }, operation: 'process' } });
    expect(changes).toBe(2);
    // A new form has a new key.
    expect(formKey((await web.get('/admin/returns')).text)).not.toBe(form.key);
  });

  it('adds a note once and a tag to every return of a search', async () => {
    const chosen = [await newReturn(), await newReturn('flagged')];
    const list = await web.get('/admin/returns');
    const form = { csrf: csrf(list.text), key: formKey(list.text), scope: 'chosen', action: 'NOTE', note: 'Called the shopper', id: chosen.map((r) => r.id) };
    await web.post('/admin/returns/bulk', form);
    await web.post('/admin/returns/bulk', form);
    expect(decode((await web.get(`/admin/returns/bulk/${form.key}`)).text)).toContain('2 given the note, 0 refused.');
    expect(await server.db.prisma.returnNote.count({ where: { returnId: { in: chosen.map((r) => r.id) } } })).toBe(2);

    await upsertReturnTag(server.db.prisma, store.storeId, { name: 'vip', pillTheme: 'NORMAL' });
    const flaggedTab = await web.get('/admin/returns?status=FLAGGED');
    expect(flaggedTab.text).toContain('<option>vip</option>');
    const flagged = rowIds(flaggedTab.text);
    const tagged = await web.post('/admin/returns/bulk', {
      csrf: csrf(flaggedTab.text),
      key: formKey(flaggedTab.text),
      scope: 'matching',
      match_status: 'FLAGGED',
      q: '',
      action: 'TAG',
      tag: 'vip',
    });
    expect(decode((await web.get(tagged.headers.get('location')!)).text)).toContain(`${flagged.length} tagged, 0 refused.`);
    const tags = await server.db.prisma.return.findMany({ where: { storeId: store.storeId }, select: { status: true, tags: true } });
    for (const r of tags) expect(r.tags).toEqual(r.status === 'flagged' ? ['vip'] : []);
  });

  it('refuses more than 1,000 returns with a message saying so, and shows a large action running, then its summary', async () => {
    const big = await createTestStore(server.db, { name: 'Big Outfitters' });
    const bigWeb = await signedIn(server, big.storeId);
    await insertBulkReturns(server.db.sql, big.storeId, { count: 1001, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'big' });
    let list = await bigWeb.get('/admin/returns');
    expect(list.text).toContain('All 1001 returns of this search and tab');
    const refused = await bigWeb.post('/admin/returns/bulk', { csrf: csrf(list.text), key: formKey(list.text), scope: 'matching', match_status: ['OPEN'], q: '', action: 'FLAG' });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/admin/returns?status=OPEN');
    const shown = decode((await bigWeb.get(refused.headers.get('location')!)).text);
    expect(shown).toContain('a bulk action acts on at most 1,000 returns and the search matches more: narrow the search or choose fewer');
    const manyIds = Array.from({ length: 1001 }, (_, i) => `${i}`.padStart(24, '0'));
    const tooMany = await bigWeb.post('/admin/returns/bulk', { csrf: csrf(list.text), key: formKey(list.text), scope: 'chosen', action: 'FLAG', id: manyIds });
    expect(decode((await bigWeb.get(tooMany.headers.get('location')!)).text)).toContain('a bulk action acts on at most 1,000 returns and 1,001 were chosen');
    expect(await server.db.prisma.returnBulkAction.count({ where: { storeId: big.storeId } })).toBe(0);

    // A selection that takes a while runs beside the page, which shows how far it got until it is done.
    const long = await createTestStore(server.db, { name: 'Long Outfitters' });
    const longWeb = await signedIn(server, long.storeId);
    await insertBulkReturns(server.db.sql, long.storeId, { count: 150, items: 1, from: new Date('2026-09-01T00:00:00Z'), stepMs: 1000, batch: 'long' });
    list = await longWeb.get('/admin/returns');
    // The background work waits while the page is read, so it shows the action running however fast the machine acts on 150 returns.
    await bulkWorker.stop();
    const started = await longWeb.post('/admin/returns/bulk', { csrf: csrf(list.text), key: formKey(list.text), scope: 'matching', match_status: ['OPEN'], q: '', action: 'FLAG' });
    const running = await longWeb.get(started.headers.get('location')!);
    expect(running.text).toContain('Flagging 150 returns');
    expect(running.headers.get('refresh')).toBe('3');
    expect(running.text).toMatch(/<progress id="bulk-progress" max="150" value="0">/);
    bulkWorker.start();
    await expect.poll(async () => decode((await longWeb.get(started.headers.get('location')!)).text), { timeout: 150_000, interval: 1000 }).toContain('150 flagged, 0 refused.');
    const done = await longWeb.get(started.headers.get('location')!);
    expect(done.headers.get('refresh')).toBeNull();
    expect(await server.db.prisma.return.count({ where: { storeId: long.storeId, status: 'flagged' } })).toBe(150);
  }, 240_000);
});

describe('the orders and customers lists', () => {
  it('show items, fulfilment and placing of each order, and orders, lifetime spend and last order of each customer, as the records say', async () => {
    const store = await createTestStore(server.db, { name: 'Figures Outfitters' });
    const web = await signedIn(server, store.storeId);
    const ada = await server.db.prisma.customer.create({ data: { id: 'cus_ada', storeId: store.storeId, email: 'ada@example.com', name: 'Ada Lovelace' } });
    await server.db.prisma.customer.create({ data: { id: 'cus_bob', storeId: store.storeId, email: 'bob@example.com', name: 'Bob Nobuy' } });
    const first = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 3 }, { quantity: 1 }], totalPrice: '30.00' });
    const second = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 2 }], totalPrice: '12.50' });
    await server.db.prisma.order.update({ where: { id: first.id }, data: { customerId: ada.id, placedAt: new Date('2026-03-01T10:00:00Z') } });
    await server.db.prisma.order.update({ where: { id: second.id }, data: { customerId: ada.id, placedAt: new Date('2026-04-02T11:00:00Z') } });
    // Two of the first order's four units sent; all of the second's, and delivered.
    await server.db.prisma.fulfillment.create({
      data: { id: 'fmt_1', storeId: store.storeId, orderId: first.id, externalId: 'f1', lineItems: { create: [{ id: 'fml_1', orderLineItemId: first.lineItems[0].id, quantity: 2 }] } },
    });
    await server.db.prisma.fulfillment.create({
      data: { id: 'fmt_2', storeId: store.storeId, orderId: second.id, externalId: 'f2', status: 'delivered', lineItems: { create: [{ id: 'fml_2', orderLineItemId: second.lineItems[0].id, quantity: 2 }] } },
    });
    const third = await createTestOrder(server.db, store.storeId, { lines: [{ quantity: 1 }], totalPrice: '5.00' });

    const orders = await web.get('/admin/orders');
    expect(orders.status).toBe(200);
    for (const column of ['Customer', 'Items', 'Total', 'Fulfilment', 'Placed']) expect(orders.text).toContain(`<th scope="col">${column}</th>`);
    const orderRow = (id: string) => new RegExp(`<a href="/admin/orders/${id}">.*?</tr>`).exec(orders.text)![0];
    expect(orderRow(first.id)).toContain('<td data-label="Items">4</td><td data-label="Total">30.00 USD</td><td data-label="Fulfilment">Partly sent</td><td data-label="Placed">2026-03-01 10:00:00 UTC</td>');
    expect(orderRow(second.id)).toContain('<td data-label="Items">2</td><td data-label="Total">12.50 USD</td><td data-label="Fulfilment">Delivered</td>');
    expect(orderRow(third.id)).toContain('<td data-label="Fulfilment">Unfulfilled</td>');
    expect(orderRow(first.id)).toContain('<td data-label="Customer">Sam Shopper</td>');

    const customers = await web.get('/admin/customers');
    expect(customers.status).toBe(200);
    const customerRow = (id: string) => new RegExp(`<a href="/admin/customers/${id}">.*?</tr>`).exec(customers.text)![0];
    expect(customerRow('cus_ada')).toContain('<td data-label="Orders">2</td><td data-label="Lifetime spend">42.50 USD</td><td data-label="Last order">2026-04-02 11:00:00 UTC</td>');
    expect(customerRow('cus_bob')).toContain('<td data-label="Orders">0</td><td data-label="Lifetime spend">—</td><td data-label="Last order">—</td>');
  });
});
