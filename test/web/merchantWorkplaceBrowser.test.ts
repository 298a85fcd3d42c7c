// Issue 43, items 5-7 in Chromium: a return's actions as a merchant uses them (processing
// previewed, an item rejected, confirmed; a complete return offering only a reset, which
// asks to be confirmed), and every page these items changed at 1280 and 390 px, each with
// no axe-core violation and nothing scrolling sideways on a phone. Screenshots go to
// test-artifacts/screenshots/43-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, lookAtBothWidths, openWatchedPage, type WatchedPage } from '../support/browser.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { createTestOrder, insertTestReturn, type TestOrder, type TestReturn } from '../support/returnFixtures.ts';
import { newId } from '../../src/domain/ids.ts';
import { orderLink } from '../../src/web/portal.ts';
import { insertEvents, subscribe } from '../webhooks/support.ts';
import { createUser, PASSWORD } from './helpers.ts';
import { PortalLinks } from '../../src/auth/shopper.ts';

let server: TestServer;
let store: TestStore;
let browser: Browser;
let merchant: WatchedPage;
let customerId: string;
let order: TestOrder;
let open: TestReturn;
let webhookId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  store = await createTestStore(server.db);
  await createUser(server, store.storeId, 'merchant@example.com');
  customerId = newId('customer');
  await server.db.prisma.customer.create({ data: { id: customerId, storeId: store.storeId, email: 'cora@example.com', firstName: 'Cora', lastName: 'Lind', phoneNumbers: [] } });
  order = await createTestOrder(server.db, store.storeId, {
    customerEmail: 'cora@example.com',
    totalPrice: '55.00',
    lines: [{ title: 'Red running shoe, size 42', price: '40.00' }, { title: 'Blue wool hat', price: '15.00' }],
  });
  await server.db.prisma.order.update({ where: { id: order.id }, data: { customerId } });
  open = await insertTestReturn(server.db, store.storeId, order, { items: [{ lineIndex: 0 }, { lineIndex: 1, outcome: 'credit' }] });
  webhookId = (await subscribe(server, store.secret, { url: 'https://93.184.215.14/hook', topics: ['order.created'] })).subscription!.id;
  const [failed] = await insertEvents(server.db, { storeId: store.storeId, subscriptionId: webhookId }, [
    { topic: 'order.created', subjectId: order.id, data: {} },
    { topic: 'order.created', subjectId: 'ord_other', data: {} },
  ]);
  await server.db.prisma.webhookDelivery.updateMany({ where: { subscriptionId: webhookId }, data: { status: 'DELIVERED', attemptCount: 1, queued: true } });
  await server.db.prisma.webhookDelivery.updateMany({ where: { eventId: failed }, data: { status: 'DISCARDED', attemptCount: 8, lastError: 'HTTP 500' } });
  merchant = await openWatchedPage(browser);
  await merchant.page.goto(`${server.url}/admin/login?store=${store.storeId}`);
  await merchant.page.fill('#login-email', 'merchant@example.com');
  await merchant.page.fill('#login-password', PASSWORD);
  await submit(merchant.page, 'form[action="/admin/login"] button');
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

const lookAt = (page: Page, name: string) => lookAtBothWidths(page, `43-${name}`);

describe('a return\'s money actions in Chromium', { timeout: 180_000 }, () => {
  it('previews processing, rejects an item, confirms, then offers only a reset that must be confirmed', async () => {
    const { page } = merchant;
    await page.goto(`${server.url}/admin/returns/${open.id}`);
    await lookAt(page, 'return-open');
    await submit(page, '#process-link');
    expect(await page.textContent('#process-confirm')).toBe('Confirm: refund 40.00 USD, store credit 15.00 USD');
    await lookAt(page, 'process-preview');

    // The refund item paid as store credit instead: a radio per way, the amounts shown again before anything is confirmed.
    await page.check(`input[name="outcome-${open.itemIds[0]}"][value="CREDIT"]`);
    await submit(page, 'button:has-text("Update the amounts")');
    expect(await page.textContent('#process-confirm')).toBe('Confirm: refund 0.00 USD, store credit 55.00 USD');
    await lookAt(page, 'process-preview-paid-as-credit');
    await page.check(`input[name="outcome-${open.itemIds[0]}"][value="REFUND"]`);

    await page.check(`input[name="reject"][value="${open.itemIds[1]}"]`);
    await submit(page, 'button:has-text("Update the amounts")');
    expect(await page.textContent('#process-confirm')).toBe('Confirm: refund 40.00 USD, store credit 0.00 USD');
    await lookAt(page, 'process-preview-item-rejected');
    await submit(page, '#process-confirm');
    expect(await page.textContent('#flash')).toBe(`Return #${open.number} processed: refunded 40.00 USD, store credit 0.00 USD, 1 item rejected.`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('flash');
    expect(await page.textContent('#return-status')).toBe('COMPLETE');
    await lookAt(page, 'return-processed');

    // A complete return: no Process, Flag or Close; the reset says what it undoes and needs its box ticked.
    expect(await page.$('#process-link')).toBeNull();
    expect(await page.$(`form[action="/admin/returns/${open.id}/flag"]`)).toBeNull();
    expect(await page.$(`form[action="/admin/returns/${open.id}/close"]`)).toBeNull();
    const undoes = await page.textContent('#reset-undoes');
    expect(undoes).toContain('the refund of 40.00 USD recorded is set back to 0');
    expect(undoes).toContain('the removed item (Blue wool hat) goes back on the return');
    await page.click('#reset-form button');
    expect(await page.$eval('#reset-confirm', (box) => (box as HTMLInputElement).validity.valueMissing)).toBe(true);
    expect(await page.textContent('#return-status')).toBe('COMPLETE');
    await page.check('#reset-confirm');
    await submit(page, '#reset-form button');
    expect(await page.textContent('#flash')).toBe(`Return #${open.number} reset to open: nothing refunded or credited, every item back on it.`);
    expect(await page.textContent('#return-status')).toBe('OPEN');
    expect(await page.textContent('#return-refunded')).toBe('0.00 USD');
    await lookAt(page, 'return-reset');
    expect(merchant.errors).toEqual([]);
    expect(merchant.external).toEqual([]);
  });

  it('shows the customer, order, webhook, developer, settings and portal pages cleanly at both widths', async () => {
    const { page } = merchant;
    await page.goto(`${server.url}/admin/customers/${customerId}`);
    expect(await page.textContent('#customer-summary')).toContain('Orders 1');
    await lookAt(page, 'customer');
    await page.goto(`${server.url}/admin/orders/${order.id}`);
    expect(await page.getAttribute('#order-customer', 'href')).toBe(`/admin/customers/${customerId}`);
    await lookAt(page, 'order');

    await page.goto(`${server.url}/admin/webhooks/${webhookId}`);
    await lookAt(page, 'webhook');
    await submit(page, 'form[action$="/retry"] button');
    expect(await page.textContent('#flash')).toMatch(/queued for delivery again\.$/);
    await page.check('#edit-topic-return\\.created');
    await submit(page, '#webhook-settings button');
    expect(await page.textContent('#flash')).toBe('Webhook settings saved.');
    await submit(page, `form[action="/admin/webhooks/${webhookId}/disable"] button`);
    expect(await page.textContent('#webhook-state')).toBe('disabled');
    await lookAt(page, 'webhook-disabled');
    await page.goto(`${server.url}/admin/webhooks`);
    await lookAt(page, 'webhooks');

    await page.goto(`${server.url}/admin/settings/developer`);
    await page.fill('#client-name', 'Warehouse app');
    await submit(page, 'form[action="/admin/settings/developer/api-clients"] button');
    // No scope ticked: refused, the form shown again as it was typed.
    expect(await page.textContent('#create-error')).toContain('choose at least one scope');
    expect(await page.inputValue('#client-name')).toBe('Warehouse app');
    await lookAt(page, 'api-client-refused');
    await page.check('input[name="scopes"][value="orders_read"]');
    await submit(page, 'form[action="/admin/settings/developer/api-clients"] button');
    expect(await page.textContent('#new-secret')).toMatch(/^sk_/);
    await lookAt(page, 'api-client-created');
    await page.reload();
    expect(await page.$('#new-secret')).toBeNull();
    expect(await server.db.prisma.apiClient.count({ where: { storeId: store.storeId, name: 'Warehouse app' } })).toBe(1);

    await page.goto(`${server.url}/admin/settings/coverage`);
    await page.fill('#return-fee', '-1');
    await submit(page, 'form[action="/admin/settings/coverage/billing"] button');
    await lookAt(page, 'coverage-refused');
    await page.goto(`${server.url}/admin/settings/privacy`);
    await lookAt(page, 'privacy');
    expect(merchant.errors).toEqual([]);

    await graphql(server, store.secret, 'mutation($id: ID!) { returnProcess(id: $id) { id } }', { id: open.id });
    const shopper = await openWatchedPage(browser);
    await shopper.page.goto(`${server.url}/portal/${store.storeId}`);
    await shopper.page.fill('#order-name', '#9999');
    await shopper.page.fill('#order-email', 'cora@example.com');
    await submit(shopper.page, 'form button');
    expect(await shopper.page.inputValue('#order-name')).toBe('#9999');
    expect(await shopper.page.inputValue('#order-email')).toBe('cora@example.com');
    await lookAt(shopper.page, 'portal-lookup-failed');
    await shopper.page.goto(`${server.url}${orderLink(new PortalLinks(server.config.cursorSecret), store.storeId, order.id)}`);
    expect(await shopper.page.textContent('#return-statuses li')).toContain('Done: refund of 40.00 USD issued and store credit of 15.00 USD issued');
    await lookAt(shopper.page, 'portal-order');
    expect(shopper.errors).toEqual([]);
    expect(shopper.external).toEqual([]);
  });
});
