// Issue 43, items 5-7: money actions that cannot go wrong by accident (only what the status
// allows, processing previewed then confirmed, a reset that says what it undoes), the
// customer as a support agent needs it, and the bugs listed, each over HTTP as a merchant's
// browser (or a shopper's) sends it, read back through v3 or the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { rowCounts } from '../support/counts.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { emit, insertEvents, subscribe } from '../webhooks/support.ts';
import { createUser, signedIn, WebClient } from './helpers.ts';
import { PortalLinks } from '../../src/auth/shopper.ts';

let server: TestServer;
let store: TestStore;
let web: WebClient;

const LOGIN_ATTEMPTS = 4;

beforeAll(async () => {
  server = await startTestServer({ webLimits: { loginAttempts: LOGIN_ATTEMPTS, portalLookups: 50 } });
  store = await createTestStore(server.db);
  web = await signedIn(server, store.storeId);
});
afterAll(async () => server?.close());

/** Follows an action's redirect: the page it leads to, with the message the action left. */
async function follow(client: WebClient, response: { status: number; headers: Headers }) {
  expect(response.status).toBe(303);
  return client.get(response.headers.get('location')!);
}

const csrfOf = async (path: string) => WebClient.csrfOf((await web.get(path)).text);

/** Text as the page escaped it (html.ts writes &, <, >, ", ', = as entities), as read. */
const unescaped = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');

/** The text of the page's one-time message (kit.ts flash). */
function flashOf(page: string): string {
  const match = /id="flash"[^>]*>([\s\S]*?)<\/div>/.exec(page);
  return match ? unescaped(match[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()) : '';
}

async function processedReturn(options: { outcome?: 'refund' | 'credit' } = {}) {
  const order = await createTestOrder(server.db, store.storeId, { lines: [{ title: 'Red shoe', price: '40.00' }, { title: 'Blue hat', price: '15.00' }] });
  const ret = await insertTestReturn(server.db, store.storeId, order, { items: [{ lineIndex: 0, outcome: options.outcome ?? 'refund' }, { lineIndex: 1, outcome: options.outcome ?? 'refund' }] });
  return { order, ret };
}

describe('a return\'s actions', () => {
  it('offers only what the status allows: a complete return has no Process, Flag or Close, v3 says the same', async () => {
    const { ret } = await processedReturn();
    await graphql(server, store.secret, 'mutation($id: ID!) { returnProcess(id: $id) { id } }', { id: ret.id });
    const page = await web.get(`/admin/returns/${ret.id}`);
    expect(page.text).not.toContain(`/admin/returns/${ret.id}/process`);
    expect(page.text).not.toContain(`action="/admin/returns/${ret.id}/flag"`);
    expect(page.text).not.toContain(`action="/admin/returns/${ret.id}/close"`);
    expect(page.text).not.toContain(`action="/admin/returns/${ret.id}/remove"`);
    expect(page.text).toContain(`action="/admin/returns/${ret.id}/reset"`);
    const v3 = await graphql(server, store.secret, 'query($id: ID!) { return(id: $id) { allowedActions } }', { id: ret.id });
    expect(v3.data).toEqual({ return: { allowedActions: ['RESET', 'DELETE', 'NOTE'] } });
    const open = await processedReturn();
    const fresh = await graphql(server, store.secret, 'query($id: ID!) { return(id: $id) { allowedActions } }', { id: open.ret.id });
    expect(fresh.data).toEqual({ return: { allowedActions: ['PROCESS', 'FLAG', 'REJECT', 'RESET', 'DELETE', 'REMOVE_ITEMS', 'NOTE'] } });
  });

  it('shows what processing records before it is confirmed, lets an item be rejected, and says what happened', async () => {
    const { ret } = await processedReturn();
    const preview = await web.get(`/admin/returns/${ret.id}/process`);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Confirm: refund 55.00 USD, store credit 0.00 USD');
    // Nothing is processed by looking.
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } })).status).toBe('open');

    const rejecting = await web.get(`/admin/returns/${ret.id}/process?reject=${ret.itemIds[1]}`);
    expect(rejecting.text).toContain('Confirm: refund 40.00 USD, store credit 0.00 USD');
    const v3 = await graphql(server, store.secret, 'query($id: ID!, $r: [ID!]) { return(id: $id) { processingPreview(rejectItemIds: $r) { refund { amount } storeCredit { amount } rejectsReturn } } }', {
      id: ret.id,
      r: [ret.itemIds[1]],
    });
    expect(v3.data).toEqual({ return: { processingPreview: { refund: { amount: '40.00' }, storeCredit: { amount: '0.00' }, rejectsReturn: false } } });

    const confirmed = await web.post(`/admin/returns/${ret.id}/process`, { csrf: WebClient.csrfOf(rejecting.text), item: ret.itemIds, reject: [ret.itemIds[1]] });
    const after = await follow(web, confirmed);
    expect(flashOf(after.text)).toBe(`Return #${ret.number} processed: refunded 40.00 USD, store credit 0.00 USD, 1 item rejected.`);
    const row = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true } });
    expect(row.status).toBe('complete');
    expect(row.totalRefund.toString()).toBe('40');
    expect(row.items.find((i) => i.id === ret.itemIds[1])!.removedAt).not.toBeNull();
    // Reloading the page after the action repeats nothing and no longer shows the message.
    expect(flashOf((await web.get(`/admin/returns/${ret.id}`)).text)).toBe('');
  });

  it('lets an item asking for a refund be paid as store credit, shown before it is confirmed, and a reset asks as before', async () => {
    const { ret } = await processedReturn();
    const choice = `outcome-${ret.itemIds[0]}`;
    const preview = await web.get(`/admin/returns/${ret.id}/process`);
    // A radio per way the item may be paid, the asked one chosen; works as a plain GET form.
    expect(preview.text).toContain(`<input type="radio" name="${choice}" value="REFUND" checked> Refund (as asked)`);
    expect(preview.text).toContain(`<input type="radio" name="${choice}" value="CREDIT"> Store credit`);
    const switched = await web.get(`/admin/returns/${ret.id}/process?${choice}=CREDIT`);
    expect(switched.text).toContain('Confirm: refund 15.00 USD, store credit 40.00 USD');
    expect(switched.text).toContain(`<input type="radio" name="${choice}" value="CREDIT" checked>`);
    const v3 = await graphql(server, store.secret, 'query($id: ID!, $o: [ReturnItemOutcomeInput!]) { return(id: $id) { processingPreview(outcomes: $o) { refund { amount } storeCredit { amount } } } }', {
      id: ret.id,
      o: [{ itemId: ret.itemIds[0], outcome: 'CREDIT' }],
    });
    expect(v3.data).toEqual({ return: { processingPreview: { refund: { amount: '15.00' }, storeCredit: { amount: '40.00' } } } });

    const confirmed = await web.post(`/admin/returns/${ret.id}/process`, { csrf: WebClient.csrfOf(switched.text), item: ret.itemIds, [choice]: 'CREDIT' });
    expect(flashOf((await follow(web, confirmed)).text)).toBe(`Return #${ret.number} processed: refunded 15.00 USD, store credit 40.00 USD.`);
    const row = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true } });
    expect([row.totalRefund.toString(), row.totalStoreCredit.toString()]).toEqual(['15', '40']);
    expect(row.items.find((i) => i.id === ret.itemIds[0])).toMatchObject({ outcome: 'credit', requestedOutcome: 'refund' });

    await graphql(server, store.secret, 'mutation($id: ID!) { returnReset(id: $id) { id } }', { id: ret.id });
    const reset = await server.db.prisma.returnItem.findUniqueOrThrow({ where: { id: ret.itemIds[0] } });
    expect(reset).toMatchObject({ outcome: 'refund', requestedOutcome: null });
  });

  it('refuses an outcome the domain does not allow at processing, writing nothing', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ title: 'Kept scarf', price: '10.00' }, { title: 'Shoe', price: '20.00' }] });
    const ret = await insertTestReturn(server.db, store.storeId, order, { items: [{ lineIndex: 0, outcome: 'keep' }, { lineIndex: 1, outcome: 'refund' }] });
    const process = 'mutation($id: ID!, $items: [ProcessReturnItemInput!]!) { returnItemsProcess(id: $id, items: $items) { id } }';
    const keepToRefund = await graphql(server, store.secret, process, { id: ret.id, items: [{ itemId: ret.itemIds[0], outcome: 'REFUND' }, { itemId: ret.itemIds[1] }] });
    expect(keepToRefund.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(keepToRefund.errors?.[0]?.message).toContain('processing may only switch between refund and credit');
    const toExchange = await graphql(server, store.secret, process, { id: ret.id, items: [{ itemId: ret.itemIds[0] }, { itemId: ret.itemIds[1], outcome: 'EXCHANGE' }] });
    expect(toExchange.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    const rejectedWithOutcome = await graphql(server, store.secret, process, { id: ret.id, items: [{ itemId: ret.itemIds[0] }, { itemId: ret.itemIds[1], reject: true, outcome: 'CREDIT' }] });
    expect(rejectedWithOutcome.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    const stored = await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id }, include: { items: true } });
    expect(stored.status).toBe('open');
    expect(stored.items.map((i) => i.outcome).sort()).toEqual(['keep', 'refund']);
    // The page offers the choice only for the refund item.
    const page = await web.get(`/admin/returns/${ret.id}/process`);
    expect(page.text).not.toContain(`name="outcome-${ret.itemIds[0]}"`);
    expect(page.text).toContain(`name="outcome-${ret.itemIds[1]}"`);
  });

  it('refuses processing twice with the return named by its number, never its id', async () => {
    const { ret } = await processedReturn();
    const csrf = await csrfOf(`/admin/returns/${ret.id}/process`);
    await follow(web, await web.post(`/admin/returns/${ret.id}/process`, { csrf, item: ret.itemIds }));
    const again = await follow(web, await web.post(`/admin/returns/${ret.id}/process`, { csrf, item: ret.itemIds }));
    expect(flashOf(again.text)).toBe(`return #${ret.number} is complete: process is not allowed in that status`);
    expect(again.text).not.toContain(`return ${ret.id}`);
    const preview = await web.get(`/admin/returns/${ret.id}/process`);
    expect(preview.status).toBe(422);
    expect(preview.text).toContain(`return #${ret.number} is complete`);
    const v3 = await graphql(server, store.secret, 'mutation($id: ID!) { returnProcess(id: $id) { id } }', { id: ret.id });
    expect(v3.errors?.[0]?.message).toBe(`return #${ret.number} is complete: process is not allowed in that status`);
  });

  it('resets a complete return only once confirmed, after saying what the reset undoes', async () => {
    const { ret } = await processedReturn({ outcome: 'credit' });
    await graphql(server, store.secret, 'mutation($id: ID!, $items: [ID!]!) { returnItemsRemove(id: $id, lineItemIds: $items) { id } }', { id: ret.id, items: [ret.itemIds[1]] });
    await graphql(server, store.secret, 'mutation($id: ID!) { returnProcess(id: $id) { id } }', { id: ret.id });
    const page = await web.get(`/admin/returns/${ret.id}`);
    const undoes = /<ul id="reset-undoes">([\s\S]*?)<\/ul>/.exec(page.text)![1];
    expect(undoes).toContain('store credit of <strong>40.00 USD</strong>');
    expect(undoes).toContain('the removed item (Blue hat) goes back on the return');

    const unconfirmed = await follow(web, await web.post(`/admin/returns/${ret.id}/reset`, { csrf: WebClient.csrfOf(page.text) }));
    expect(flashOf(unconfirmed.text)).toBe('Nothing was reset: tick the box to confirm what the reset undoes.');
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } })).status).toBe('complete');

    const reset = await follow(web, await web.post(`/admin/returns/${ret.id}/reset`, { csrf: WebClient.csrfOf(page.text), confirm: 'yes' }));
    expect(flashOf(reset.text)).toBe(`Return #${ret.number} reset to open: nothing refunded or credited, every item back on it.`);
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } })).status).toBe('open');
  });

  it('ends flag, close, note, tags and remove with a redirect and a message naming the return by its number', async () => {
    const { ret } = await processedReturn();
    const csrf = await csrfOf(`/admin/returns/${ret.id}`);
    const said = async (action: string, form: Record<string, string | string[]> = {}) => flashOf((await follow(web, await web.post(`/admin/returns/${ret.id}/${action}`, { csrf, ...form }))).text);
    expect(await said('note', { content: 'Called the shopper' })).toBe(`Note added to return #${ret.number}.`);
    expect(await said('remove', { items: [ret.itemIds[1]] })).toBe(`1 item removed from return #${ret.number}.`);
    expect(await said('tags', { newTag: 'checked' })).toBe(`Tags of return #${ret.number} saved.`);
    expect(await said('flag')).toBe(`Return #${ret.number} flagged for review.`);
    expect(await said('flag')).toBe(`return #${ret.number} is flagged: flag is not allowed in that status`);
    expect(await said('close')).toBe(`Return #${ret.number} closed (rejected): its items no longer claim the order's units.`);
  });
});

describe('the customer page', () => {
  it('has the history, order count, lifetime spend and last order; an order and a return link to the customer', async () => {
    const customerId = newId('customer');
    await server.db.prisma.customer.create({ data: { id: customerId, storeId: store.storeId, email: 'cora@example.com', firstName: 'Cora', phoneNumbers: [] } });
    const first = await createTestOrder(server.db, store.storeId, { customerEmail: 'cora@example.com', totalPrice: '30.00' });
    const second = await createTestOrder(server.db, store.storeId, { customerEmail: 'cora@example.com', totalPrice: '12.50' });
    await server.db.prisma.order.updateMany({ where: { id: { in: [first.id, second.id] } }, data: { customerId } });
    await server.db.prisma.order.update({ where: { id: second.id }, data: { placedAt: new Date('2026-02-01T09:00:00Z') } });
    const ret = await insertTestReturn(server.db, store.storeId, second);
    await server.db.prisma.customer.update({ where: { id: customerId }, data: { firstName: 'Coralie' } });

    const page = await web.get(`/admin/customers/${customerId}`);
    expect(page.status).toBe(200);
    const summary = /<p id="customer-summary">([\s\S]*?)<\/p>/.exec(page.text)![1].replace(/<[^>]+>/g, '');
    expect(summary).toBe(`Orders 2 · Lifetime spend 42.50 USD · Last order ${second.name} 2026-02-01 09:00:00 UTC`);
    expect(page.text).toContain('<h2>History</h2>');
    expect(unescaped(page.text)).toContain('<code>firstName</code> Cora → Coralie');

    expect((await web.get(`/admin/orders/${second.id}`)).text).toContain(`<a href="/admin/customers/${customerId}" id="order-customer">`);
    expect((await web.get(`/admin/returns/${ret.id}`)).text).toContain(`<a href="/admin/customers/${customerId}" id="return-customer">`);
  });
});

describe('the shopper portal', () => {
  it('says store credit, not refund, for a store-credit return that is done', async () => {
    const { order, ret } = await processedReturn({ outcome: 'credit' });
    await graphql(server, store.secret, 'mutation($id: ID!) { returnProcess(id: $id) { id } }', { id: ret.id });
    const { orderLink } = await import('../../src/web/portal.ts');
    const page = await new WebClient(server).get(orderLink(new PortalLinks(server.config.cursorSecret), store.storeId, order.id));
    expect(page.text).toContain('Done: store credit of 55.00 USD issued');
    expect(page.text).not.toContain('refund issued');
  });

  it('keeps what was typed after a failed look-up', async () => {
    const shopper = new WebClient(server);
    const form = await shopper.get(`/portal/${store.storeId}`);
    const failed = await shopper.post(`/portal/${store.storeId}/lookup`, { csrf: WebClient.csrfOf(form.text), order: '#9999', email: 'who@example.com' });
    expect(failed.status).toBe(404);
    expect(failed.text).toContain('value="#9999"');
    expect(failed.text).toContain('value="who@example.com"');
  });

  it('pre-selects no reason, and asks for one for each item returned, keeping the form', async () => {
    const order = await createTestOrder(server.db, store.storeId, { lines: [{ title: 'Green scarf' }] });
    const { orderLink } = await import('../../src/web/portal.ts');
    const shopper = new WebClient(server);
    const link = orderLink(new PortalLinks(server.config.cursorSecret), store.storeId, order.id);
    const page = await shopper.get(link);
    expect(page.text).toContain('<option value="" selected>Choose a reason</option>');
    expect(page.text).not.toMatch(/<option value="too_small" selected/);
    const token = new URL(link, server.url).searchParams.get('token')!;
    const refused = await shopper.post(`/portal/${store.storeId}/orders/${order.id}/returns`, {
      csrf: WebClient.csrfOf(page.text),
      token,
      line: order.lineItems[0].id,
      quantity: '1',
      reason: '',
      outcome: 'CREDIT',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Choose a reason for each item you return.');
    expect(refused.text).toContain('<option value="CREDIT" selected>');
    expect(await server.db.prisma.return.count({ where: { orderId: order.id } })).toBe(0);
  });
});

describe('API clients', () => {
  it('creates once: the secret is shown on the page after the redirect, and a reload neither creates another nor shows it', async () => {
    const csrf = await csrfOf('/admin/settings/developer');
    const before = await server.db.prisma.apiClient.count({ where: { storeId: store.storeId } });
    const created = await web.post('/admin/settings/developer/api-clients', { csrf, name: 'Warehouse', scopes: 'orders_read' });
    expect(created.status).toBe(303);
    const shown = await web.get(created.headers.get('location')!);
    const secret = /<code class="secret" id="new-secret">([^<]+)<\/code>/.exec(shown.text)![1];
    expect(secret).toMatch(/^sk_/);
    const reloaded = await web.get(created.headers.get('location')!);
    expect(reloaded.text).not.toContain(secret);
    expect(await server.db.prisma.apiClient.count({ where: { storeId: store.storeId } })).toBe(before + 1);
  });

  it('refuses a client with no scope, in the rule itself, keeping what was typed', async () => {
    const csrf = await csrfOf('/admin/settings/developer');
    const before = await rowCounts(server.db);
    const refused = await web.post('/admin/settings/developer/api-clients', { csrf, name: 'Nothing at all' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('choose at least one scope');
    expect(refused.text).toContain('value="Nothing at all"');
    expect(await rowCounts(server.db)).toEqual(before);
  });
});

describe('webhooks', () => {
  const hook = async (enabled = true) =>
    (await subscribe(server, store.secret, { url: 'https://93.184.215.14/hook', topics: ['order.created'], enabled })).subscription!.id;

  it('refuses a replay of a disabled subscription with the reason, queuing nothing', async () => {
    const id = await hook(false);
    await emit(server.db, store.storeId, 'order.created', 'ord_replayed');
    const before = await server.db.prisma.webhookDelivery.count({ where: { subscriptionId: id } });
    const page = await web.get(`/admin/webhooks/${id}`);
    expect(page.text).toContain('A disabled webhook cannot be replayed');
    const refused = await follow(web, await web.post(`/admin/webhooks/${id}/replay`, { csrf: WebClient.csrfOf(page.text), since: '2000-01-01T00:00' }));
    expect(flashOf(refused.text)).toBe('Replay refused: the subscription is disabled: nothing can be replayed until it is enabled again');
    expect(await server.db.prisma.webhookDelivery.count({ where: { subscriptionId: id } })).toBe(before);
  });

  it('pages the delivery log to its oldest entry', async () => {
    const id = await hook();
    const events = await insertEvents(server.db, { storeId: store.storeId, subscriptionId: id }, Array.from({ length: 55 }, (_, i) => ({ topic: 'order.created' as const, subjectId: `ord_${i}`, data: {} })));
    const seen = new Set<string>();
    let path: string | null = `/admin/webhooks/${id}`;
    while (path) {
      const page = await web.get(path);
      for (const [, event] of page.text.matchAll(/<td data-label="Event"><code>([^<]+)<\/code>/g)) seen.add(event);
      const next = /<a href="([^"]+)" rel="next">Older deliveries<\/a>/.exec(page.text);
      path = next ? unescaped(next[1]) : null;
    }
    expect([...seen].sort()).toEqual([...events].sort());
  });

  it('enables, disables, edits and deletes a subscription through v3 mutations', async () => {
    const id = await hook();
    const csrf = await csrfOf(`/admin/webhooks/${id}`);
    expect(flashOf((await follow(web, await web.post(`/admin/webhooks/${id}/disable`, { csrf }))).text)).toBe('Webhook disabled: new deliveries wait until it is enabled again.');
    expect((await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id } })).enabled).toBe(false);
    expect(flashOf((await follow(web, await web.post(`/admin/webhooks/${id}/enable`, { csrf }))).text)).toBe('Webhook enabled: deliveries that waited are on their way.');
    const saved = await follow(web, await web.post(`/admin/webhooks/${id}/update`, { csrf, url: 'https://93.184.215.15/other', topics: ['order.created', 'return.created'], secret: 'a-new-secret-of-32-characters-ok!' }));
    expect(flashOf(saved.text)).toBe('Webhook settings saved.');
    expect(await server.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id } })).toMatchObject({ url: 'https://93.184.215.15/other', topics: ['order.created', 'return.created'], enabled: true });
    const refused = await follow(web, await web.post(`/admin/webhooks/${id}/update`, { csrf, url: 'http://insecure.example/', topics: ['order.created'] }));
    expect(flashOf(refused.text)).toMatch(/^Not saved: /);
    const notConfirmed = await follow(web, await web.post(`/admin/webhooks/${id}/delete`, { csrf }));
    expect(flashOf(notConfirmed.text)).toBe('Nothing was deleted: tick the box to confirm the deletion.');
    const deleted = await web.post(`/admin/webhooks/${id}/delete`, { csrf, confirm: 'yes' });
    expect(deleted.headers.get('location')).toBe('/admin/webhooks');
    expect(flashOf((await web.get('/admin/webhooks')).text)).toBe('Webhook deleted with its delivery log.');
    expect(await server.db.prisma.webhookSubscription.count({ where: { id } })).toBe(0);
  });

  it('retries one failed delivery, and only a failed one', async () => {
    const id = await hook();
    const [failedEvent, okEvent] = await insertEvents(server.db, { storeId: store.storeId, subscriptionId: id }, [
      { topic: 'order.created', subjectId: 'ord_failed', data: {} },
      { topic: 'order.created', subjectId: 'ord_ok', data: {} },
    ]);
    await server.db.prisma.webhookDelivery.updateMany({ where: { eventId: failedEvent }, data: { status: 'DISCARDED', attemptCount: 8, queued: true } });
    await server.db.prisma.webhookDelivery.updateMany({ where: { eventId: okEvent }, data: { status: 'DELIVERED', attemptCount: 1, queued: true } });
    const failed = await server.db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: failedEvent } });
    const delivered = await server.db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: okEvent } });
    const page = await web.get(`/admin/webhooks/${id}`);
    expect(page.text).toContain(`action="/admin/webhooks/${id}/deliveries/${failed.id}/retry"`);
    expect(page.text).not.toContain(`/deliveries/${delivered.id}/retry`);
    const csrf = WebClient.csrfOf(page.text);
    const retried = await follow(web, await web.post(`/admin/webhooks/${id}/deliveries/${failed.id}/retry`, { csrf }));
    expect(flashOf(retried.text)).toBe(`Event ${failedEvent} queued for delivery again.`);
    expect(await server.db.prisma.webhookDelivery.count({ where: { eventId: failedEvent, status: 'PENDING' } })).toBe(1);
    const refused = await follow(web, await web.post(`/admin/webhooks/${id}/deliveries/${delivered.id}/retry`, { csrf }));
    expect(flashOf(refused.text)).toBe('Retry refused: only a delivery that failed for good (DISCARDED) can be retried; this one is DELIVERED');
  });
});

describe('sign-in throttling', () => {
  it('counts failures only: many successful sign-ins in the window never lock the account', async () => {
    await createUser(server, store.storeId, 'often@example.com');
    for (let i = 0; i < LOGIN_ATTEMPTS * 3; i++) expect((await new WebClient(server).login(store.storeId, 'often@example.com')).status).toBe(303);
    const statuses = [];
    for (let i = 0; i <= LOGIN_ATTEMPTS; i++) statuses.push((await new WebClient(server).login(store.storeId, 'often@example.com', 'wrong')).status);
    expect(statuses).toEqual([...Array(LOGIN_ATTEMPTS).fill(401), 429]);
  });
});

describe('POST/redirect/GET', () => {
  it('coverage, store erasure and a customer\'s erasure answer with a redirect and a message', async () => {
    const coverage = await follow(web, await web.post('/admin/settings/coverage/billing', { csrf: await csrfOf('/admin/settings/coverage'), returnProcessingFee: '0.50' }));
    expect(flashOf(coverage.text)).toBe('Return processing fee saved.');
    const wrongStore = await follow(web, await web.post('/admin/settings/privacy/erase-store', { csrf: await csrfOf('/admin/settings/privacy'), confirmStoreId: 'not-this-store' }));
    expect(flashOf(wrongStore.text)).toMatch(/^Nothing was erased: /);
    const customerId = newId('customer');
    await server.db.prisma.customer.create({ data: { id: customerId, storeId: store.storeId, email: 'gone@example.com', phoneNumbers: [] } });
    const csrf = await csrfOf(`/admin/customers/${customerId}`);
    expect(flashOf((await follow(web, await web.post(`/admin/customers/${customerId}/erase`, { csrf }))).text)).toBe('Nothing was erased: tick the box to confirm, erasure cannot be undone.');
    const erased = await follow(web, await web.post(`/admin/customers/${customerId}/erase`, { csrf, confirm: 'yes' }));
    expect(flashOf(erased.text)).toMatch(/^Erased: \d+ records changed \(customers: 1/);
  });
});
