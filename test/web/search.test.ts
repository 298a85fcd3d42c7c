// The dashboard's search boxes (issue 33) and its customer and product pages: the orders,
// returns, customers and products lists search with the v3 `query:` syntax, page with the
// same cursors (the next page keeps the search), show a malformed search beside the box
// with 400, and say when nothing matches; a customer's page finds its orders and returns,
// a product's page its stock per location, an oversold one marked. Over HTTP, then typed
// into each box in Chromium (screenshots 20-27 in test-artifacts/screenshots/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createProduct, createProductFamily } from '../../src/domain/catalog.ts';
import { updateCustomerSubscriptions } from '../../src/domain/customerSubscriptions.ts';
import { upsertCustomer } from '../../src/domain/customers.ts';
import { adjustInventory, createLocation } from '../../src/domain/inventory.ts';
import { createOrder, type OrderInput } from '../../src/domain/orders.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { flagReturn } from '../../src/domain/returns/operations.ts';
import { launchBrowser, openWatchedPage, screenshot } from '../support/browser.ts';
import { orderInput } from '../support/orderInput.ts';
import { createTestStore, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { createUser, PASSWORD, signedIn, type WebClient } from './helpers.ts';

let server: TestServer;
let browser: Browser;
let store: TestStore;
let other: TestStore;
let web: WebClient;
const ids: Record<string, string> = {};

/** An order at `locationId` (its lines commit stock there). */
const order = (orderId: string, customer: OrderInput['customer'], locationId: string, lines: { sku: string; title: string; quantity: number }[]) =>
  orderInput(orderId, customer, lines, { locationId });

async function firstLine(orderId: string): Promise<string> {
  return (await server.db.prisma.orderLineItem.findFirstOrThrow({ where: { orderId } })).id;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  store = await createTestStore(server.db, { name: 'Search Outfitters' });
  other = await createTestStore(server.db, { name: 'Other store' });
  const db = server.db.prisma;
  const s = store.storeId;

  // Two locations; the tee is oversold at the shop: 1 on hand, 4 committed by Ada's order.
  const berlin = await createLocation(db, s, { name: 'Berlin Warehouse' });
  const austin = await createLocation(db, s, { name: 'Austin Shop' });
  const family = await createProductFamily(db, s, { title: 'Blade', options: [{ name: 'Colour', values: ['Midnight Blue', 'Red'] }] });
  const blade = await createProduct(db, s, {
    title: 'Blade Runner Poster', sku: 'BLADE-01', upc: '012345678905', barcodes: ['4006381333931'], vendor: 'Café Prints',
    productFamilyId: family.id, options: [{ name: 'Colour', value: 'Midnight Blue' }], price: '30',
  });
  const tee = await createProduct(db, s, { title: 'Trail Tee', sku: 'TEE-RED-M', vendor: 'Demo Outfitters', price: '25' });
  for (const [productId, locationId, quantityDelta] of [[blade.id, berlin.id, 10], [blade.id, austin.id, 4], [tee.id, berlin.id, 6], [tee.id, austin.id, 1]] as const) {
    await adjustInventory(db, s, { productId, locationId, quantityDelta, reason: 'count' });
  }
  Object.assign(ids, { blade: blade.id, tee: tee.id });

  const zoe = await createOrder(db, s, order('SHOP-7001', { email: 'zoe.dupont@gmail.com', firstName: 'Zoë', lastName: 'Dupont', phoneNumber: '+14155550107' }, berlin.id, [{ sku: 'BLADE-01', title: 'Blade Runner Poster', quantity: 2 }]));
  const ada = await createOrder(db, s, order('SHOP-7002', { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' }, austin.id, [{ sku: 'TEE-RED-M', title: 'Trail Tee', quantity: 4 }]));
  // Found by a search for ada@example.com (a part of it), yet not Ada's.
  const nada = await createOrder(db, s, order('SHOP-7003', { email: 'nada@example.com', firstName: 'Nada', lastName: 'Other' }, berlin.id, [{ sku: 'MUG-02', title: 'Enamel Mug', quantity: 1 }]));
  Object.assign(ids, { zoeOrder: zoe.name, adaOrder: ada.name, nadaOrder: nada.name, zoeOrderId: zoe.id });
  const zoeReturn = await createReturn(db, s, { orderId: zoe.id, items: [{ lineItemId: await firstLine(zoe.id), quantity: 1, reason: 'arrived damaged' }] });
  const adaReturn = await createReturn(db, s, { orderId: ada.id, items: [{ lineItemId: await firstLine(ada.id), quantity: 1, reason: 'too small' }] });
  const nadaReturn = await createReturn(db, s, { orderId: nada.id, items: [{ lineItemId: await firstLine(nada.id), quantity: 1, reason: 'chipped' }] });
  await flagReturn(db, s, { id: adaReturn.id });
  for (const [key, id] of [['zoeReturn', zoeReturn.id], ['adaReturn', adaReturn.id], ['nadaReturn', nadaReturn.id]]) {
    ids[key] = String((await db.return.findUniqueOrThrow({ where: { id } })).number);
  }

  const zoeCustomer = await upsertCustomer(db, s, { email: 'zoe.dupont@gmail.com', firstName: 'Zoë', lastName: 'Dupont', phoneNumber: '+14155550107', customFields: { loyalty_tier: 'Platinum' } });
  await updateCustomerSubscriptions(db, s, { email: { email: 'zoe.dupont@gmail.com', subscriptions: { marketing: { subscriptionStatus: 'SUBSCRIBED' } } } });
  // Known only by a phone number (an SMS consent), with an order that gave no e-mail.
  const sam = await updateCustomerSubscriptions(db, s, { sms: { phoneNumber: '+14155550199', subscriptions: { transactional: { subscriptionStatus: 'SUBSCRIBED' } } } });
  const samOrder = await createOrder(db, s, order('SHOP-7004', { phoneNumber: '+14155550199', firstName: 'Sam' }, berlin.id, [{ sku: 'MUG-02', title: 'Enamel Mug', quantity: 1 }]));
  Object.assign(ids, { samCustomer: sam.customer.id, samOrder: samOrder.name });
  // Updated last: listed first.
  const adaCustomer = await upsertCustomer(db, s, { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
  const elsewhere = await upsertCustomer(db, other.storeId, { email: 'zoe.dupont@gmail.com', firstName: 'Zoë' });
  Object.assign(ids, { zoeCustomer: zoeCustomer.customer.id, adaCustomer: adaCustomer.customer.id, elsewhere: elsewhere.customer.id });

  await createUser(server, s, 'owner@example.com');
  web = await signedIn(server, s, 'clerk@example.com');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The text of the page's table rows (tbody), tags dropped: what a reader sees in the list. */
function rows(page: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => m[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
}

/** Text as html.ts escapes it (&#NN;), read back. */
function unescape(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

/** The search box's value as a reader sees it. */
function boxValue(page: string): string {
  return unescape(/<input type="search" id="search-q" name="q" value="([^"]*)"/.exec(page)?.[1] ?? '(no search box)');
}

const search = (path: string, q: string, extra: Record<string, string> = {}) => web.get(`${path}?${new URLSearchParams({ ...extra, q }).toString()}`);

describe('search boxes over HTTP', () => {
  it('orders: lists, searches, keeps old name= links, and says when nothing matches', async () => {
    const all = await web.get('/admin/orders');
    expect(all.status).toBe(200);
    expect(all.text).toContain('<form method="get" action="/admin/orders"');
    expect(rows(all.text)).toHaveLength(4);
    const zoe = await search('/admin/orders', 'zoe');
    expect(rows(zoe.text)).toEqual([expect.stringContaining(ids.zoeOrder)]);
    expect(boxValue(zoe.text)).toBe('zoe');
    expect(rows((await search('/admin/orders', 'email:example -nada')).text)).toEqual([expect.stringContaining(ids.adaOrder)]);
    expect(rows((await search('/admin/orders', '(415) 555-0107')).text)).toEqual([expect.stringContaining(ids.zoeOrder)]);
    const old = await web.get(`/admin/orders?name=${encodeURIComponent(ids.adaOrder)}`);
    expect(rows(old.text)).toEqual([expect.stringContaining(ids.adaOrder)]);
    expect(boxValue(old.text)).toBe(`name:${ids.adaOrder}`);
    const none = await search('/admin/orders', 'nothing-like-this');
    expect(none.status).toBe(200);
    expect(rows(none.text)).toEqual(['No orders match.']);
  });

  it('returns: the search box with the status filter, old order_name= links, and the order page linking to its returns', async () => {
    expect(rows((await web.get('/admin/returns')).text)).toHaveLength(3);
    expect(rows((await search('/admin/returns', 'reason:damaged')).text)).toEqual([expect.stringContaining(`#${ids.zoeReturn}`)]);
    expect(rows((await search('/admin/returns', 'example', { status: 'FLAGGED' })).text)).toEqual([expect.stringContaining(`#${ids.adaReturn}`)]);
    const open = await search('/admin/returns', 'lovelace', { status: 'OPEN' });
    expect(rows(open.text)).toEqual(['No returns match.']);
    expect(open.text).toContain('aria-current="page" data-status-tab="OPEN"');
    const old = await web.get(`/admin/returns?order_name=${encodeURIComponent(ids.nadaOrder)}`);
    expect(rows(old.text)).toEqual([expect.stringContaining(`#${ids.nadaReturn}`)]);
    expect(rows((await web.get(`/admin/returns?orderName=${encodeURIComponent(ids.adaOrder)}`)).text)).toEqual([expect.stringContaining(`#${ids.adaReturn}`)]);
    const orderPage = await web.get(`/admin/orders/${ids.zoeOrderId}`);
    const link = /href="(\/admin\/returns\?q=[^"]+)">Returns of this order/.exec(unescape(orderPage.text))![1];
    expect(rows((await web.get(link)).text)).toEqual([expect.stringContaining(`#${ids.zoeReturn}`)]);
  });

  it('customers: newest updated first, found by a custom field value or a phone written any way', async () => {
    const all = await web.get('/admin/customers');
    expect(all.status).toBe(200);
    const listed = rows(all.text);
    expect(listed).toHaveLength(3);
    expect(listed[0]).toContain('ada@example.com');
    expect(listed[1]).toContain('no e-mail');
    expect(listed[2]).toContain('zoe.dupont@gmail.com Zoë Dupont +14155550107');
    expect(all.text).toContain('<th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Phone</th><th scope="col">Orders</th><th scope="col">Lifetime spend</th><th scope="col">Last order</th>');
    expect(rows((await search('/admin/customers', 'platinum')).text)).toEqual([expect.stringContaining('zoe.dupont@gmail.com')]);
    expect(rows((await search('/admin/customers', '+1 (415) 555 0107')).text)).toEqual([expect.stringContaining('zoe.dupont@gmail.com')]);
    expect(rows((await search('/admin/customers', 'name:lovel')).text)).toEqual([expect.stringContaining('ada@example.com')]);
    expect(rows((await search('/admin/customers', 'nobody-like-this')).text)).toEqual(['No customers match.']);
  });

  it('products: title, SKU, vendor, price and what is available across locations', async () => {
    const all = await web.get('/admin/products');
    expect(all.text).toContain('<th scope="col">Title</th><th scope="col">SKU</th><th scope="col">Vendor</th><th scope="col">Price</th><th scope="col">Available</th>');
    // Blade: 10 - 2 committed at Berlin, 4 at Austin; tee: 6 at Berlin, 1 - 4 at Austin.
    expect(rows(all.text)).toEqual(['Trail Tee TEE-RED-M Demo Outfitters 25.00 USD 3', 'Blade Runner Poster BLADE-01 Café Prints 30.00 USD 12']);
    expect(rows((await search('/admin/products', 'vendor:cafe')).text)).toEqual([expect.stringContaining('Blade Runner Poster')]);
    expect(rows((await search('/admin/products', 'option:"midnight blue"')).text)).toEqual([expect.stringContaining('Blade Runner Poster')]);
    expect(rows((await search('/admin/products', '4006381333931')).text)).toEqual([expect.stringContaining('BLADE-01')]);
    expect(rows((await search('/admin/products', 'price:<30')).text)).toEqual([expect.stringContaining('Trail Tee')]);
    expect(rows((await search('/admin/products', 'teapot')).text)).toEqual(['No products match.']);
  });

  it.each([
    ['/admin/orders', 'colour:red', /colour:red.*orders have no search field/],
    ['/admin/returns', 'ups OR', /OR needs a term after it/],
    ['/admin/customers', '(zoe', /parenthesis is opened and never closed/],
    ['/admin/products', 'sku:', /has no value after the colon/],
    ['/admin/orders', '-mug', /nothing in it can be looked up in an index.*add a word of 3 or more letters or digits/],
    ['/admin/customers', 'zz', /nothing in it can be looked up in an index.*add a word of 3 or more letters or digits/],
  ])('%s: a malformed search "%s" is shown beside the box as typed, with 400', async (path, q, message) => {
    const page = await search(path, q, path === '/admin/returns' ? { status: 'OPEN' } : {});
    expect(page.status).toBe(400);
    const alert = /<p class="error" role="alert" id="search-error">([^<]*)<\/p>/.exec(page.text)?.[1] ?? '';
    expect(unescape(alert)).toMatch(message);
    expect(boxValue(page.text)).toBe(q);
    expect(page.text).toContain('aria-invalid="true"');
    expect(page.text).not.toContain('<tbody>');
    if (path === '/admin/returns') expect(page.text).toContain('<input type="hidden" name="status" value="OPEN">');
  });

  it('escapes what was typed, in the box and in the error', async () => {
    const hostile = 'colour:<script>alert(1)</script>';
    const page = await search('/admin/orders', hostile);
    expect(page.status).toBe(400);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.text).toMatch(/id="search-error">[^<]*colour:&#60;script&#62;alert/);
    // A bad cursor is the searcher's too: shown, never a 500.
    const cursor = await web.get('/admin/customers?q=zoe&after=not-a-cursor');
    expect(cursor.status).toBe(400);
    expect(boxValue(cursor.text)).toBe('zoe');
  });
});

describe('paging over HTTP', () => {
  let pager: WebClient;

  beforeAll(async () => {
    // A store of its own, so the lists above stay short: 51 of each, one more than a page.
    const paged = await createTestStore(server.db, { name: 'Paging store' });
    const db = server.db.prisma;
    const s = paged.storeId;
    const location = await createLocation(db, s, { name: 'Only Warehouse' });
    const bulk = await createOrder(db, s, order('BULK-0', { email: 'bulk@paging.test' }, location.id, [{ sku: 'PAGER-BULK', title: 'Pager bulk', quantity: 60 }]));
    const line = await firstLine(bulk.id);
    for (let i = 1; i <= 50; i++) await createOrder(db, s, order(`BULK-${i}`, { email: `pager${i}@paging.test` }, location.id, [{ sku: `PAGER-${i}`, title: 'Pager', quantity: 1 }]));
    for (let i = 0; i <= 50; i++) await createReturn(db, s, { orderId: bulk.id, items: [{ lineItemId: line, quantity: 1, reason: 'pager' }] });
    for (let i = 0; i <= 50; i++) await upsertCustomer(db, s, { email: `pager${i}@paging.test`, firstName: 'Pager' });
    for (let i = 0; i <= 50; i++) await createProduct(db, s, { title: `Pager ${i}`, sku: `PAGER-${i}` });
    pager = await signedIn(server, s, 'pager@example.com');
  }, 120_000);

  it.each([
    ['/admin/orders', {}],
    ['/admin/returns', { status: 'OPEN' }],
    ['/admin/customers', {}],
    ['/admin/products', {}],
  ])('%s: 50 rows, then the next page from a link that keeps the search (and filter)', async (path, extra: Record<string, string>) => {
    const first = await pager.get(`${path}?${new URLSearchParams({ ...extra, q: 'pager' }).toString()}`);
    expect(first.status).toBe(200);
    expect(rows(first.text)).toHaveLength(50);
    const href = unescape(/<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.text)![1]);
    const link = new URL(href, server.url);
    expect(link.pathname).toBe(path);
    expect(link.searchParams.get('q')).toBe('pager');
    for (const [key, value] of Object.entries(extra)) expect(link.searchParams.get(key)).toBe(value);
    const second = await pager.get(href);
    expect(rows(second.text)).toHaveLength(1);
    expect(rows(second.text)[0]).not.toMatch(/match/);
    expect(second.text).not.toContain('rel="next"');
    expect(boxValue(second.text)).toBe('pager');
    expect(new Set([...rows(first.text), ...rows(second.text)]).size).toBe(51);
  });
});

describe('detail pages over HTTP', () => {
  it("a customer's profile, custom fields, consent, and exactly its orders and returns", async () => {
    const zoe = await web.get(`/admin/customers/${ids.zoeCustomer}`);
    expect(zoe.status).toBe(200);
    expect(zoe.text).toContain('<h1>Zoë Dupont</h1>');
    expect(zoe.text).toMatch(/<td>loyalty_tier<\/td><td>Platinum<\/td>/);
    expect(zoe.text).toMatch(/<td>EMAIL<\/td><td>MARKETING<\/td><td>CONFIRMED<\/td>/);
    const zoeOrders = /<table id="customer-orders">([\s\S]*?)<\/table>/.exec(zoe.text)![1];
    expect(zoeOrders).toContain(ids.zoeOrder);
    expect(zoeOrders).not.toContain(ids.adaOrder);
    const zoeReturns = /<table class="cards" id="customer-returns">([\s\S]*?)<\/table>/.exec(zoe.text)![1];
    expect(zoeReturns).toContain(`#${ids.zoeReturn}`);

    // ada@example.com also finds nada@example.com's order and return: they are not Ada's.
    const ada = await web.get(`/admin/customers/${ids.adaCustomer}`);
    const adaOrders = /<table id="customer-orders">([\s\S]*?)<\/table>/.exec(ada.text)![1];
    expect(adaOrders).toContain(ids.adaOrder);
    expect(adaOrders).not.toContain(ids.nadaOrder);
    const adaReturns = /<table class="cards" id="customer-returns">([\s\S]*?)<\/table>/.exec(ada.text)![1];
    expect(adaReturns).toContain(`#${ids.adaReturn}`);
    expect(adaReturns).toContain('FLAGGED');
    expect(adaReturns).not.toContain(`#${ids.nadaReturn}`);
    expect(ada.text).toContain('<p>No custom fields.</p>');

    // Without an e-mail, the orders are found by the phone numbers.
    const sam = await web.get(`/admin/customers/${ids.samCustomer}`);
    expect(sam.status).toBe(200);
    expect(/<table id="customer-orders">([\s\S]*?)<\/table>/.exec(sam.text)![1]).toContain(ids.samOrder);
    expect(sam.text).toMatch(/<td>SMS<\/td><td>TRANSACTIONAL<\/td><td>SUBSCRIBED<\/td><td>\+14155550199<\/td>/);
    expect(sam.text).toContain('<p>No returns.</p>');
  });

  it("another store's customer, a product id and a malformed id are not found", async () => {
    for (const path of [`/admin/customers/${ids.elsewhere}`, `/admin/customers/${ids.tee}`, '/admin/customers/nonsense', '/admin/products/nonsense', `/admin/products/${ids.zoeCustomer}`]) {
      const page = await web.get(path);
      expect(page.status, path).toBe(404);
    }
  });

  it("a product's options, barcodes and stock per location, the oversold level marked", async () => {
    const blade = await web.get(`/admin/products/${ids.blade}`);
    expect(blade.status).toBe(200);
    expect(blade.text).toMatch(/<td>Colour<\/td><td>Midnight Blue<\/td>/);
    expect(blade.text).toContain('012345678905');
    expect(blade.text).toContain('4006381333931');
    const tee = await web.get(`/admin/products/${ids.tee}`);
    const stock = /<table id="product-stock">([\s\S]*?)<\/table>/.exec(tee.text)![1];
    const levels = [...stock.matchAll(/<tr( class="oversold")? data-level-id="[^"]+">([\s\S]*?)<\/tr>/g)].map((m) => ({
      oversold: Boolean(m[1]),
      cells: m[2].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim(),
    }));
    // Location, quantity, available, committed, reserved (then when it changed).
    expect(levels).toEqual([
      { oversold: false, cells: expect.stringMatching(/^Berlin Warehouse 6 6 0 0 /) },
      { oversold: true, cells: expect.stringMatching(/^Austin Shop 1 -3 oversold 4 0 /) },
    ]);
    expect(stock).toMatch(/<tfoot><tr><th scope="row">All locations<\/th><td class="num">7<\/td><td class="num">3<\/td><td class="num">4<\/td>/);
    expect(tee.text).toContain('<p>No options: a standalone product.</p>');
  });
});

describe('search boxes in Chromium', { timeout: 120_000 }, () => {
  async function signIn(page: Page): Promise<void> {
    await page.goto(`${server.url}/admin/login?store=${store.storeId}`);
    await page.fill('#login-email', 'owner@example.com');
    await page.fill('#login-password', PASSWORD);
    await page.click('form[action="/admin/login"] button');
    await page.waitForURL(`${server.url}/admin`);
  }

  /** Types into the page's search box and sends it. */
  async function searchFor(page: Page, q: string): Promise<void> {
    await page.fill('#search-q', q);
    await Promise.all([page.waitForURL((url) => url.searchParams.get('q') === q), page.click('form:has(#search-q) button')]);
  }

  const listed = (page: Page) => page.$$eval('tbody tr', (trs) => trs.map((tr) => (tr.textContent ?? '').replace(/\s+/g, ' ').trim()));

  it('types into each search box, opens a customer and a product, nothing leaves the machine or fails', async () => {
    const { page, errors, external } = await openWatchedPage(browser, { width: 1024, height: 720 });
    await signIn(page);

    await page.click('nav a[href="/admin/orders"]');
    await searchFor(page, 'email:example -nada');
    expect(await listed(page)).toEqual([expect.stringContaining(ids.adaOrder)]);
    // The fields open without script.
    await page.click('details.hint summary');
    expect(await page.isVisible('details.hint code')).toBe(true);
    await screenshot(page, '20-orders-search', { fullPage: true });

    await page.click('nav a[href="/admin/returns"]');
    await page.click('a[data-status-tab="OPEN"]');
    await searchFor(page, 'reason:damaged');
    expect(await listed(page)).toEqual([expect.stringContaining(`#${ids.zoeReturn}`)]);
    await page.waitForSelector('#returns-list[data-live="on"]');
    await screenshot(page, '21-returns-search', { fullPage: true });

    await page.click('nav a[href="/admin/customers"]');
    await searchFor(page, 'zoe');
    expect(await listed(page)).toEqual([expect.stringContaining('zoe.dupont@gmail.com')]);
    await screenshot(page, '22-customers-search', { fullPage: true });
    await Promise.all([page.waitForURL(`${server.url}/admin/customers/${ids.zoeCustomer}`), page.click(`a[href="/admin/customers/${ids.zoeCustomer}"]`)]);
    expect(await page.textContent('#customer-orders')).toContain(ids.zoeOrder);
    expect(await page.textContent('#customer-returns')).toContain(`#${ids.zoeReturn}`);
    expect(await page.textContent('#custom-fields')).toContain('Platinum');
    await screenshot(page, '23-customer-detail', { fullPage: true });

    await page.click('nav a[href="/admin/products"]');
    await searchFor(page, 'tee');
    expect(await listed(page)).toEqual([expect.stringContaining('Trail Tee')]);
    await screenshot(page, '24-products-search', { fullPage: true });
    await Promise.all([page.waitForURL(`${server.url}/admin/products/${ids.tee}`), page.click(`a[href="/admin/products/${ids.tee}"]`)]);
    expect(await page.$$eval('#product-stock tbody tr.oversold', (trs) => trs.map((tr) => tr.querySelector('td')!.textContent))).toEqual(['Austin Shop']);
    await screenshot(page, '25-product-detail', { fullPage: true });

    // A malformed search: the message beside the box, what was typed kept.
    await page.goto(`${server.url}/admin/products`);
    await page.fill('#search-q', 'sku:');
    await Promise.all([page.waitForURL((url) => url.searchParams.get('q') === 'sku:'), page.click('form:has(#search-q) button')]);
    expect(await page.textContent('#search-error')).toMatch(/no value after the colon/);
    expect(await page.inputValue('#search-q')).toBe('sku:');
    await screenshot(page, '27-products-search-error', { fullPage: true });

    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.context().close();
  });

  it('the products list fits a 360 px wide phone', async () => {
    const { page, errors, external } = await openWatchedPage(browser, { width: 360, height: 740 });
    await signIn(page);
    await page.goto(`${server.url}/admin/products`);
    expect(await listed(page)).toHaveLength(2);
    await screenshot(page, '26-products-360', { fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.context().close();
  });
});
