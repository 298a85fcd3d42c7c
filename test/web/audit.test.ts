// The audit trail on the web door: a dashboard action is recorded as the signed-in merchant
// user's, a return the shopper portal creates as the shopper's browser session, each with the
// request's x-request-id; and the order, return, product and API client pages show the history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLevel, seedLocation, seedProduct } from '../support/inventoryFixtures.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { signedIn, WebClient } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let web: WebClient;
let userId: string;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db, { name: 'Audited store' });
  web = await signedIn(server, store.storeId, 'owner@example.com');
  userId = (await server.db.prisma.merchantUser.findFirstOrThrow({ where: { storeId: store.storeId } })).id;
});
afterAll(async () => server?.close());

interface Row {
  actorKind: string;
  actorId: string | null;
  actorName: string | null;
  door: string;
  operation: string | null;
  objectKind: string;
  objectId: string;
  parentId: string | null;
  changes: Record<string, { before?: unknown; after?: unknown }>;
}

const entriesOf = (requestId: string) => server.db.sql.query<Row>(`SELECT * FROM "AuditEntry" WHERE "requestId" = $1 ORDER BY id`, [requestId]);

/** The rows of the page's history table, as text. */
function historyRows(page: string): string[] {
  const table = /<h2>History<\/h2>\s*<div class="table"[^>]*><table class="history">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
  return [...table.matchAll(/<tr data-entry-id="\d+">([\s\S]*?)<\/tr>/g)].map((m) => m[1].replace(/<[^>]+>/g, ' ').replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))).replace(/\s+/g, ' ').trim());
}

describe('the dashboard', () => {
  it("records an action as the merchant user's, through the web door, with the request id, and shows it on the return's page", async () => {
    const ret = await insertTestReturn(server.db, store.storeId, await createTestOrder(server.db, store.storeId));
    const page = await web.get(`/admin/returns/${ret.id}`);
    const flagged = await web.post(`/admin/returns/${ret.id}/flag`, { csrf: WebClient.csrfOf(page.text) });
    expect(flagged.status).toBe(303);
    const [entry] = (await entriesOf(flagged.headers.get('x-request-id')!)).filter((e) => e.objectKind === 'Return');
    expect(entry).toMatchObject({ actorKind: 'MERCHANT_USER', actorId: userId, actorName: 'owner@example.com', door: 'web', operation: 'returnFlag', objectId: ret.id });
    expect(entry.changes.status).toEqual({ before: 'open', after: 'flagged' });

    const after = await web.get(`/admin/returns/${ret.id}`);
    const rows = historyRows(after.text);
    expect(rows[0]).toContain('owner@example.com');
    expect(rows[0]).toContain('web · returnFlag');
    expect(rows[0]).toContain('Return changed');
    expect(rows[0]).toContain('status open → flagged');
    // The return's creation, written without a request, is named as the database's.
    expect(rows.at(-1)).toMatch(/Database .*Return created/);
  });

  it("shows an order's history with its lines, and a product's with its stock changes", async () => {
    const created = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders`, {
      secret: store.secret,
      body: { orderId: 'audit-web-1', createdAt: '2026-11-20T10:00:00Z', lineItems: [{ id: 'l1', productId: 'p1', title: 'Teapot', quantity: 2 }] },
    });
    const orderId = (created.body as { orderId: string }).orderId;
    const order = historyRows((await web.get(`/admin/orders/${orderId}`)).text);
    expect(order.some((r) => r.includes('API client test client') && r.includes('rest · orderCreate') && r.includes('Order created'))).toBe(true);
    expect(order.some((r) => /Order line item oli_\S+ created/.test(r) && r.includes('title Teapot'))).toBe(true);

    const productId = await seedProduct(server.db, store.storeId, { title: 'Kettle' });
    const levelId = await seedLevel(server.db, { storeId: store.storeId, productId, locationId: await seedLocation(server.db, store.storeId, 'Shelf'), quantity: 50 });
    const adjusted = await graphql(server, store.secret, `mutation($input: InventoryAdjustInput!) { inventoryAdjust(input: $input) { inventoryLevel { id } userErrors { message } } }`, {
      input: { inventoryLevelId: levelId, quantityDelta: -40, reason: 'recount' },
    });
    expect(adjusted.errors).toBeUndefined();
    expect(adjusted.data).toMatchObject({ inventoryAdjust: { userErrors: [] } });
    const product = historyRows((await web.get(`/admin/products/${productId}`)).text);
    expect(product[0]).toMatch(/API client test client .* v3 · inventoryAdjust .*Inventory level li_\S+ changed quantity 50 → 10/);
  });

  it("shows on an API client's page what the client changed and the client's own history", async () => {
    const page = await web.get(`/admin/settings/developer/api-clients/${store.clientId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2>Changes made by this client</h2>');
    expect(page.text).toContain('inventoryAdjust');
    expect(page.text).toContain('<h2>History of this client</h2>');
    expect(page.text).toMatch(/API client created[\s\S]*secretHash<\/code> \[hidden\]/);
    expect((await web.get('/admin/settings/developer')).text).toContain(`href="/admin/settings/developer/api-clients/${store.clientId}"`);
    expect((await web.get('/admin/settings/developer/api-clients/apc_unknown')).status).toBe(404);
  });
});

describe('the shopper portal', () => {
  async function portalReturn(shopper: WebClient, orderName: string) {
    const form = await shopper.get(`/portal/${store.storeId}`);
    const csrf = WebClient.csrfOf(form.text);
    const found = await shopper.post(`/portal/${store.storeId}/lookup`, { csrf, order: orderName, email: 'shopper@example.com' });
    const link = found.headers.get('location')!;
    const orderPage = await shopper.get(link);
    const line = /name="line" value="([^"]+)"/.exec(orderPage.text)![1];
    const token = /name="token" value="([^"]+)"/.exec(orderPage.text)![1];
    const path = `${new URL(link, server.url).pathname}/returns`;
    return shopper.post(path, { csrf, token, line, quantity: '1', reason: 'too_small', outcome: 'REFUND' });
  }

  it("records a return the shopper started as the shopper's, one session per browser", async () => {
    const first = await createTestOrder(server.db, store.storeId, { customerEmail: 'shopper@example.com' });
    const second = await createTestOrder(server.db, store.storeId, { customerEmail: 'shopper@example.com' });
    const browser = new WebClient(server);
    const created = await portalReturn(browser, first.name);
    expect(created.status).toBe(303);
    const [entry] = (await entriesOf(created.headers.get('x-request-id')!)).filter((e) => e.objectKind === 'Return');
    expect(entry).toMatchObject({ actorKind: 'SHOPPER', actorName: null, door: 'web', operation: 'returnCreate' });
    expect(entry.actorId).toMatch(/^shp_[A-Za-z0-9_-]{22}$/);
    expect(entry.changes.orderId).toEqual({ after: first.id });
    // The session names the browser, never the form token it is made from.
    expect(entry.actorId).not.toContain(browser.jar.get('form_token')!);

    const again = await portalReturn(browser, second.name);
    const [sameBrowser] = (await entriesOf(again.headers.get('x-request-id')!)).filter((e) => e.objectKind === 'Return');
    expect(sameBrowser.actorId).toBe(entry.actorId);
    const elsewhere = await portalReturn(new WebClient(server), second.name);
    const [otherBrowser] = (await entriesOf(elsewhere.headers.get('x-request-id')!)).filter((e) => e.objectKind === 'Return');
    expect(otherBrowser.actorId).not.toBe(entry.actorId);
  });
});
