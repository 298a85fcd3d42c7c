// The dashboard and portal in real Chromium (Debian's package through playwright-core),
// at a 360 px wide viewport, on the demo data (src/domain/demo.ts) signed in with the demo
// login, as a newcomer sees them after `npm start`. Screenshots of each page go to
// test-artifacts/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openWatchedPage, screenshot as viewport } from '../support/browser.ts';
import { call, graphql, startTestServer, type TestServer } from '../support/server.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { seedDemo, type DemoSeed } from '../../src/domain/demo.ts';
import { DEMO_WEBHOOK_URL } from '../../src/domain/demo/webhooks.ts';
import { flagReturn } from '../../src/domain/returns/operations.ts';
import { subscribe } from '../webhooks/support.ts';

let server: TestServer;
let store: Extract<DemoSeed, { seeded: true }>;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const seeded = await seedDemo(server.db.prisma);
  if (!seeded.seeded) throw new Error('the test database already had the demo data');
  store = seeded;
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A phone-sized page with its own cookie jar; nothing it loads may leave the machine or fail. */
async function newPage() {
  return openWatchedPage(browser, { width: 360, height: 740 });
}

const screenshot = (page: Page, name: string) => viewport(page, name, { fullPage: true });

/** Clicks a control that submits a form or follows a link, and waits for the next page. */
async function submit(page: Page, selector: string): Promise<void> {
  await page.click(selector);
  await page.waitForLoadState();
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.url}/v2.2/stores/${store.storeId}/admin`);
  expect(await page.$eval('#login-store', (el) => (el as HTMLInputElement).value)).toBe(store.storeId);
  await screenshot(page, '01-login');
  await page.fill('#login-email', store.login.email);
  await page.fill('#login-password', store.login.password);
  await submit(page, 'form[action="/admin/login"] button');
  expect(new URL(page.url()).pathname).toBe('/admin');
}

describe('dashboard in Chromium', { timeout: 120_000 }, () => {
  it('signs in, creates an API client whose secret works on REST and v3, revokes it -> 401', async () => {
    const { page, errors, external } = await newPage();
    await signIn(page);
    await page.goto(`${server.url}/admin/settings/developer`);
    await page.fill('#client-name', 'Warehouse app');
    await page.click('input[name="scopes"][value="returns_read"]');
    await page.click('input[name="scopes"][value="orders_read"]');
    await submit(page, 'form[action="/admin/settings/developer/api-clients"] button');
    const secret = await page.$eval('#new-secret', (el) => el.textContent!.trim());
    await screenshot(page, '02-api-client-created');
    expect(secret).toMatch(/^sk_/);

    const rest = await call(server, 'GET', `/v2.2/stores/${store.storeId}/returns`, { secret });
    expect(rest.status).toBe(200);
    const v3 = await graphql(server, secret, '{ store { id } }');
    expect(v3.data).toEqual({ store: { id: store.storeId } });
    expect((await call(server, 'GET', `/v2.2/stores/${store.storeId}/customers?email=a@b.co`, { secret })).status).toBe(403);

    // The secret is shown once: the list page no longer has it.
    await page.goto(`${server.url}/admin/settings/developer`);
    expect(await page.content()).not.toContain(secret);
    await submit(page, 'button[aria-label="Revoke Warehouse app"]');
    await screenshot(page, '03-api-client-revoked');
    expect((await call(server, 'GET', `/v2.2/stores/${store.storeId}/returns`, { secret })).status).toBe(401);
    expect((await graphql(server, secret, '{ store { id } }')).status).toBe(401);

    await page.goto(`${server.url}/admin/settings/coverage`);
    await screenshot(page, '18-coverage-settings');
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.context().close();
  });

  it('shopper portal (#1001, ada@example.com) -> return created -> seen by the compat door and the dashboard -> processed -> portal shows it done', async () => {
    const db = server.db.prisma;
    const order = await db.order.findFirstOrThrow({ where: { storeId: store.storeId, name: '#1001' }, select: { name: true, customerEmail: true } });
    // The README's portal instructions: the first demo order and its customer's e-mail.
    expect(order.customerEmail).toBe('ada@example.com');
    const shopper = await newPage();
    await shopper.page.goto(`${server.url}/portal/${store.storeId}`);
    await screenshot(shopper.page, '04-portal-lookup');
    await shopper.page.fill('#order-name', order.name);
    await shopper.page.fill('#order-email', 'ada@example.com');
    await submit(shopper.page, 'form button');
    await screenshot(shopper.page, '05-portal-order');
    // The tee was returned already: the socks (2) and the cap are left to return.
    expect(await shopper.page.textContent('body')).toContain('Merino Hiking Socks');
    await shopper.page.fill('#qty-0', '2');
    await shopper.page.selectOption('#reason-0', 'too_small');
    await submit(shopper.page, 'form button');
    expect(await shopper.page.$eval('#return-statuses li', (el) => el.getAttribute('data-status'))).toBe('OPEN');
    await screenshot(shopper.page, '06-portal-return-created');

    const compat = await call(server, 'GET', `/api/v1/warehouse/return/details?order_name=${encodeURIComponent(order.name)}`, { secret: store.secret });
    expect(compat.status).toBe(200);
    const compatReturn = compat.body as { svc_id: string; state: string; line_items: { return_reason: string }[] };
    expect(compatReturn.state).toBe('open');
    expect(compatReturn.line_items.map((line) => line.return_reason)).toEqual(['too_small']);

    const merchant = await newPage();
    await signIn(merchant.page);
    await merchant.page.goto(`${server.url}/admin/returns`);
    // The demo's returns, newest change first: the shopper's return on top.
    expect(await merchant.page.$$eval('#returns-list tbody tr', (rows) => rows.length)).toBe(50);
    expect(await merchant.page.$eval('#returns-list tbody tr', (row) => row.getAttribute('data-return-id'))).toBe(compatReturn.svc_id);
    await screenshot(merchant.page, '07-returns-list');
    await submit(merchant.page, `a[href="/admin/returns/${compatReturn.svc_id}"]`);
    await graphql(server, store.secret, 'mutation { upsertReturnTag(name: "fragile", pillTheme: "DANGER") { name } }');
    await merchant.page.reload();
    await merchant.page.check('input[name="tags"][value="fragile"]');
    await merchant.page.fill('#new-tag', 'portal');
    await submit(merchant.page, `form[action="/admin/returns/${compatReturn.svc_id}/tags"] button`);
    expect(await merchant.page.isChecked('input[name="tags"][value="portal"]')).toBe(true);
    await screenshot(merchant.page, '08-return-detail');
    await submit(merchant.page, '#process-link');
    await submit(merchant.page, '#process-confirm');
    expect(await merchant.page.$eval('#return-status', (el) => el.textContent)).toBe('COMPLETE');
    await screenshot(merchant.page, '09-return-processed');

    // A demo return processed after a close and a reset: its whole history, notes and tags.
    const processed = await db.return.findFirstOrThrow({
      where: { storeId: store.storeId, status: 'complete', statusChanges: { some: { operation: 'reset' } } },
      orderBy: { number: 'asc' },
      include: { notes: true },
    });
    await merchant.page.goto(`${server.url}/admin/returns/${processed.id}`);
    const history = await merchant.page.$$eval('ol li', (items) => items.map((li) => li.textContent!.replace(/^.*: /, '')));
    expect(history).toEqual(['create — → OPEN', 'reject OPEN → REJECTED', 'reset REJECTED → OPEN', 'process OPEN → COMPLETE']);
    for (const note of processed.notes) expect(await merchant.page.textContent('body')).toContain(note.content);
    expect(await merchant.page.isChecked('input[name="tags"][value="vip"]')).toBe(true);
    await screenshot(merchant.page, '10-return-detail-demo');

    await merchant.page.goto(`${server.url}/admin/orders`);
    expect(await merchant.page.$$eval('tbody tr', (rows) => rows.length)).toBe(50);
    await screenshot(merchant.page, '11-orders');
    // A delivered demo order with a return, its way there tracked step by step.
    const shipped = await db.order.findMany({
      where: { storeId: store.storeId, returns: { some: {} }, fulfillments: { some: { status: 'delivered' } } },
      include: { lineItems: true, fulfillments: { include: { trackingEvents: true } } },
      orderBy: { placedAt: 'desc' },
    });
    const detailed = shipped.find((o) => o.lineItems.length > 1 && o.fulfillments[0].trackingEvents.length > 1)!;
    await merchant.page.goto(`${server.url}/admin/orders/${detailed.id}`);
    const orderPage = await merchant.page.textContent('body');
    expect(orderPage).toContain(detailed.fulfillments[0].trackingNumber!);
    expect(orderPage).toContain('in_transit Picked up by carrier');
    expect(orderPage).toContain('delivered Delivered, left at front door');
    await screenshot(merchant.page, '12-order-detail');
    // The newest order has not shipped yet: fulfilled now through REST, it shows its tracking.
    const unshipped = await db.order.findFirstOrThrow({ where: { storeId: store.storeId, fulfillments: { none: {} } }, orderBy: { placedAt: 'desc' }, include: { lineItems: true } });
    const fulfilled = await call(server, 'POST', `/v2.2/stores/${store.storeId}/orders/${unshipped.externalId}/fulfillments`, {
      secret: store.secret,
      body: { fulfillmentId: 'F-BROWSER', lineItems: [{ id: unshipped.lineItems[0].externalId, quantity: 1 }], tracking: { carrier: 'UPS', code: '1ZBROWSER' } },
    });
    expect(fulfilled.status).toBeLessThan(300);
    await merchant.page.goto(`${server.url}/admin/orders/${unshipped.id}`);
    expect(await merchant.page.textContent('body')).toContain('1ZBROWSER');
    await screenshot(merchant.page, '13-order-fulfilled');

    const webhook = await subscribe(server, store.secret, { url: 'https://93.184.215.14/hook', topics: ['return.created', 'return.updated'] });
    await merchant.page.goto(`${server.url}/admin/webhooks`);
    const webhooks = await merchant.page.textContent('body');
    expect(webhooks).toContain(DEMO_WEBHOOK_URL);
    expect(webhooks).toContain('https://93.184.215.14/hook');
    await screenshot(merchant.page, '14-webhooks');
    // The demo subscription's delivery log: delivered at once, after retries, and discarded.
    const demoWebhook = await db.webhookSubscription.findFirstOrThrow({ where: { storeId: store.storeId, url: DEMO_WEBHOOK_URL } });
    await submit(merchant.page, `a[href="/admin/webhooks/${demoWebhook.id}"]`);
    const log = await merchant.page.$$eval('tbody tr', (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent!.trim())));
    expect(log.length).toBeGreaterThanOrEqual(40);
    expect(log.some(([, , , status, attempts]) => status === 'DELIVERED' && attempts === '1')).toBe(true);
    expect(log.some(([, , , status, attempts]) => status === 'DELIVERED' && Number(attempts) > 1)).toBe(true);
    expect(log.some(([, , , status, attempts]) => status === 'DISCARDED' && attempts === '8')).toBe(true);
    expect(log.some(([, , , status]) => status === 'PENDING')).toBe(false);
    await screenshot(merchant.page, '15-webhook-delivery-log');
    // A phone shows the first columns of the wide tables; a desktop's screen shows them whole.
    const desktop = await openWatchedPage(browser);
    await signIn(desktop.page);
    for (const [path, name] of [[`/admin/webhooks/${demoWebhook.id}`, '15-webhook-delivery-log-desktop'], ['/admin/returns', '07-returns-list-desktop'], ['/admin/orders', '11-orders-desktop']]) {
      await desktop.page.goto(`${server.url}${path}`);
      await viewport(desktop.page, name);
    }
    await merchant.page.goto(`${server.url}/admin/webhooks/${webhook.subscription!.id}`);
    await merchant.page.fill('#replay-since', '2000-01-01T00:00');
    await submit(merchant.page, `form[action="/admin/webhooks/${webhook.subscription!.id}/replay"] button`);
    expect(await merchant.page.textContent('[role="status"]')).toMatch(/deliveries queued|delivery queued/);
    await screenshot(merchant.page, '16-webhook-replayed');

    await shopper.page.reload();
    expect(await shopper.page.$eval('#return-statuses li', (el) => el.getAttribute('data-status'))).toBe('COMPLETE');
    expect(await shopper.page.$eval('#return-statuses li', (el) => el.textContent)).toContain('Done');
    await screenshot(shopper.page, '17-portal-return-done');
    // Nothing is wider than the 360 px viewport.
    expect(await shopper.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect([...shopper.errors, ...merchant.errors, ...desktop.errors]).toEqual([]);
    expect([...shopper.external, ...merchant.external, ...desktop.external]).toEqual([]);
    await desktop.page.context().close();
  });

  it('the returns list follows status changes from the event stream, without a reload', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ title: 'Rain Shell', quantity: 3, price: '80.00' }] });
    const leaving = await insertTestReturn(server.db, store.storeId, order);
    const staying = await insertTestReturn(server.db, store.storeId, order);
    const { page, errors, external } = await newPage();
    await signIn(page);
    await page.goto(`${server.url}/admin/returns?status=OPEN`);
    await page.waitForSelector('#returns-list[data-live="on"]');
    const row = (id: string) => `tr[data-return-id="${id}"]`;
    // Marks that a reload, or a row rebuilt though it did not change, would drop.
    await page.evaluate((selector) => {
      Object.assign(window, { notReloaded: true });
      Object.assign(document.querySelector(selector)!, { untouched: true });
    }, row(staying.id));

    // Flagged, the return leaves this list of open returns; the other row stays as it was.
    await flagReturn(server.db.prisma, store.storeId, { id: leaving.id });
    await page.waitForSelector(row(leaving.id), { state: 'detached', timeout: 5_000 });
    // A return created elsewhere appears.
    const created = await graphql(server, store.secret, `mutation($input: ReturnCreateInput!) { returnCreate(input: $input) { ... on ReturnCreatePayload { return { id } } } }`, {
      input: { orderId: order.id, items: [{ lineItemId: order.lineItems[0].id, quantity: 1, reason: 'Too small' }] },
    });
    const createdId = (created.data as { returnCreate: { return: { id: string } } }).returnCreate.return.id;
    await page.waitForSelector(`${row(createdId)} >> text=OPEN`, { timeout: 5_000 });
    expect(await page.evaluate(() => (window as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await page.$eval(row(staying.id), (el) => (el as { untouched?: boolean }).untouched)).toBe(true);
    await screenshot(page, '19-returns-list-live');
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.context().close();
  });
});
