// The dashboard and portal over plain HTTP: sign-in, session cookie, CSRF, store
// isolation, escaping, and the portal's uniform answers and rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, startTestServer, call, type TestServer, type TestStore } from '../support/server.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { pruneWebState } from '../../src/auth/throttle.ts';
import { createUser, PASSWORD, signedIn, WebClient } from './helpers.ts';
import { subscribe } from '../webhooks/support.ts';

const HOSTILE = `<script>alert("x")</script>'"><img src=x onerror=alert(1)>`;

let server: TestServer;
let storeA: TestStore;
let storeB: TestStore;

beforeAll(async () => {
  server = await startTestServer({ webLimits: { loginAttempts: 4, portalLookups: 5 } });
  storeA = await createTestStore(server.db, { name: 'Store A' });
  storeB = await createTestStore(server.db, { name: 'Store B' });
});
afterAll(async () => server?.close());

describe('sign-in', () => {
  it('refuses a wrong password and an unknown e-mail alike, and sets a hardened session cookie on success', async () => {
    await createUser(server, storeA.storeId, 'login@example.com');
    const client = new WebClient(server);
    const wrong = await client.login(storeA.storeId, 'login@example.com', 'not the password');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Wrong store, e-mail or password.');
    const unknown = await client.login(storeA.storeId, 'nobody@example.com', PASSWORD);
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('Wrong store, e-mail or password.');
    expect(client.jar.has('merchant_session')).toBe(false);
    const otherStore = await client.login(storeB.storeId, 'login@example.com', PASSWORD);
    expect(otherStore.status).toBe(401);

    const ok = await client.login(storeA.storeId, 'Login@Example.com');
    expect(ok.status).toBe(303);
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith('merchant_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await client.get('/admin/returns');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');

    const https = await new WebClient(server).request('GET', `/admin/login?store=${storeA.storeId}`, undefined, { 'x-forwarded-proto': 'https' });
    expect(https.headers.getSetCookie()[0]).toMatch(/; Secure/);
  });

  it('throttles sign-in attempts per store and e-mail', async () => {
    const client = new WebClient(server);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await client.login(storeA.storeId, 'throttled@example.com', 'guess')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });

  it('signs out: the old cookie no longer opens the dashboard', async () => {
    const client = await signedIn(server, storeA.storeId, 'logout@example.com');
    const token = client.jar.get('merchant_session')!;
    const page = await client.get('/admin/returns');
    const out = await client.post('/admin/logout', { csrf: WebClient.csrfOf(page.text) });
    expect(out.status).toBe(303);
    const replay = await fetch(`${server.url}/admin/returns`, { headers: { cookie: `merchant_session=${token}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/admin/login');
  });

  it('prunes old throttle windows and expired sessions, keeping live ones', async () => {
    const client = await signedIn(server, storeA.storeId, 'prune@example.com');
    const live = await server.db.prisma.merchantSession.count();
    const user = await server.db.prisma.merchantUser.findFirstOrThrow({ where: { email: 'prune@example.com' } });
    await server.db.prisma.merchantSession.create({ data: { tokenHash: 'expired', userId: user.id, csrfToken: 'x', expiresAt: new Date(Date.now() - 1000) } });
    await server.db.prisma.throttleWindow.create({ data: { key: 'old', windowStart: new Date(Date.now() - 2 * 86_400_000), count: 1 } });
    await pruneWebState(server.db.prisma);
    expect(await server.db.prisma.merchantSession.count()).toBe(live);
    expect(await server.db.prisma.throttleWindow.count({ where: { key: 'old' } })).toBe(0);
    expect((await client.get('/admin/returns')).status).toBe(200);
  });
});

describe('CSRF', () => {
  it('refuses a form without the token or with the token of another session, and writes nothing', async () => {
    const alice = await signedIn(server, storeA.storeId, 'alice@example.com');
    const bob = await signedIn(server, storeA.storeId, 'bob@example.com');
    const bobsToken = WebClient.csrfOf((await bob.get('/admin/settings/developer')).text);
    const before = await server.db.prisma.apiClient.count();
    const missing = await alice.post('/admin/settings/developer/api-clients', { name: 'x', scopes: 'orders_read' });
    expect(missing.status).toBe(403);
    const foreign = await alice.post('/admin/settings/developer/api-clients', { csrf: bobsToken, name: 'x', scopes: 'orders_read' });
    expect(foreign.status).toBe(403);
    expect(await server.db.prisma.apiClient.count()).toBe(before);
    const loginWithoutToken = await new WebClient(server).post('/admin/login', { store: storeA.storeId, email: 'alice@example.com', password: PASSWORD });
    expect(loginWithoutToken.status).toBe(403);
  });
});

describe('CSRF tokens against BREACH', () => {
  // A compressed page that reflects what the address asked for beside the token tells, by its
  // length, whether a guess matches the token's start; a token masked afresh for every page
  // (a random pad, and the token XOR the pad) never repeats, so nothing can be learnt from it.
  it('masks the token afresh in every form of every page, accepts each mask, and refuses a tampered one', async () => {
    const client = await signedIn(server, storeA.storeId, 'masked@example.com');
    const tokensOf = (text: string) => [...text.matchAll(/name="csrf" value="([^"]+)"/g)].map((match) => match[1]);
    const first = tokensOf((await client.get('/admin/settings/developer?query=abc')).text);
    const second = tokensOf((await client.get('/admin/settings/developer?query=abc')).text);
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(new Set([...first, ...second]).size).toBe(first.length + second.length);
    const sessions = await server.db.prisma.merchantSession.findMany({ where: { user: { email: 'masked@example.com' } }, select: { csrfToken: true } });
    expect(sessions).toHaveLength(1);
    for (const { csrfToken } of sessions) for (const token of [...first, ...second]) expect(token).not.toContain(csrfToken);

    const before = await server.db.prisma.apiClient.count();
    for (const csrf of [first[1], second[1]]) {
      const created = await client.post('/admin/settings/developer/api-clients', { csrf, name: 'masked', scopes: 'orders_read' });
      expect(created.status).toBeLessThan(400);
    }
    expect(await server.db.prisma.apiClient.count()).toBe(before + 2);
    const token = first[0];
    const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    for (const csrf of [flipped, token.slice(0, -2), `${token}AA`]) {
      const refused = await client.post('/admin/settings/developer/api-clients', { csrf, name: 'tampered', scopes: 'orders_read' });
      expect(refused.status).toBe(403);
    }
    expect(await server.db.prisma.apiClient.count()).toBe(before + 2);
  });
});

describe('store isolation', () => {
  it("answers 404 for another store's ids in every dashboard URL, and changes nothing", async () => {
    const order = await createTestOrder(server.db, storeB.storeId);
    const ret = await insertTestReturn(server.db, storeB.storeId, order);
    const webhook = await subscribe(server, storeB.secret, { url: 'https://93.184.215.14/hook', topics: ['return.created'] });
    const webhookId = webhook.subscription!.id;
    const client = await signedIn(server, storeA.storeId, 'isolated@example.com');
    const csrf = WebClient.csrfOf((await client.get('/admin/returns')).text);
    for (const path of [`/admin/returns/${ret.id}`, `/admin/orders/${order.id}`, `/admin/webhooks/${webhookId}`]) {
      const response = await client.get(path);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain(order.name);
    }
    for (const action of ['process', 'flag', 'close', 'reset', 'remove', 'note']) {
      const response = await client.post(`/admin/returns/${ret.id}/${action}`, { csrf, content: 'hi', items: 'x', confirm: 'yes' });
      expect(response.status, action).toBe(404);
    }
    const revoke = await client.post(`/admin/settings/developer/api-clients/${storeB.clientId}/revoke`, { csrf });
    expect(revoke.status).toBe(404);
    expect((await server.db.prisma.return.findUniqueOrThrow({ where: { id: ret.id } })).status).toBe('open');
    expect((await server.db.prisma.apiClient.findUniqueOrThrow({ where: { id: storeB.clientId } })).revokedAt).toBeNull();
  });

  it('keeps API client management away from API secrets', async () => {
    const response = await call(server, 'POST', '/v3/graphql', { secret: storeA.secret, body: { query: '{ apiClients { id } }' } });
    expect((response.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('FORBIDDEN');
    const create = await call(server, 'POST', '/v3/graphql', {
      secret: storeA.secret,
      body: { query: 'mutation { createApiClient(name: "x", scopes: [orders_read]) { secret } }' },
    });
    expect((create.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('hostile strings', () => {
  it('renders names, reasons and notes as text', async () => {
    const order = await createTestOrder(server.db, storeA.storeId, { lines: [{ title: HOSTILE }, {}] });
    const ret = await insertTestReturn(server.db, storeA.storeId, order);
    await server.db.prisma.returnItem.updateMany({ where: { returnId: ret.id }, data: { reason: HOSTILE } });
    const client = await signedIn(server, storeA.storeId, 'escape@example.com');
    const detail = await client.get(`/admin/returns/${ret.id}`);
    await client.post(`/admin/returns/${ret.id}/note`, { csrf: WebClient.csrfOf(detail.text), content: HOSTILE });
    const creation = await client.post('/admin/settings/developer/api-clients', { csrf: WebClient.csrfOf(detail.text), name: HOSTILE, scopes: 'orders_read' });
    expect(creation.status).toBe(303);
    const created = await client.get(creation.headers.get('location')!);
    for (const page of [await client.get(`/admin/returns/${ret.id}`), await client.get(`/admin/orders/${order.id}`), created]) {
      expect(page.text).not.toContain('<script>');
      expect(page.text).not.toContain('<img');
      expect(page.text).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;');
    }
    const notes = await client.get(`/admin/returns/${ret.id}`);
    expect(notes.text.match(/&#60;script&#62;/g)!.length).toBeGreaterThanOrEqual(3);
  });
});

describe('shopper portal', () => {
  it('answers an unknown order and a wrong e-mail the same way, and rate limits lookups', async () => {
    const store = await createTestStore(server.db, { name: 'Portal store' });
    const order = await createTestOrder(server.db, store.storeId, { customerEmail: 'shopper@example.com' });
    const shopper = new WebClient(server);
    const form = await shopper.get(`/portal/${store.storeId}`);
    expect(form.status).toBe(200);
    const csrf = WebClient.csrfOf(form.text);
    const unknown = await shopper.post(`/portal/${store.storeId}/lookup`, { csrf, order: '#9999', email: 'shopper@example.com' });
    const wrongEmail = await shopper.post(`/portal/${store.storeId}/lookup`, { csrf, order: order.name, email: 'other@example.com' });
    expect(unknown.status).toBe(wrongEmail.status);
    // The same page but for what each shopper typed, which the form keeps.
    const typedLeftOut = (text: string) => text.replace(/(id="order-(?:name|email)"[^>]*) value="[^"]*"/g, '$1');
    expect(typedLeftOut(unknown.text)).toBe(typedLeftOut(wrongEmail.text));
    expect(unknown.text).toContain('value="#9999"');
    const found = await shopper.post(`/portal/${store.storeId}/lookup`, { csrf, order: order.name, email: 'Shopper@Example.com' });
    expect(found.status).toBe(303);
    expect(found.headers.get('location')).toMatch(new RegExp(`^/portal/${store.storeId}/orders/${order.id}\\?token=`));
    const forged = await shopper.get(`/portal/${store.storeId}/orders/${order.id}?token=1.${'A'.repeat(43)}`);
    expect(forged.status).toBe(404);
    const fromOtherStore = await shopper.get(found.headers.get('location')!.replace(store.storeId, storeA.storeId));
    expect(fromOtherStore.status).toBe(404);

    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await shopper.post(`/portal/${store.storeId}/lookup`, { csrf, order: '#1', email: 'a@b.co' })).status);
    expect(statuses).toEqual([404, 404, 429]);
  });

  it('is reached through the REST redirects', async () => {
    const admin = await fetch(`${server.url}/v2.2/stores/${storeA.storeId}/admin`, { redirect: 'manual' });
    expect(admin.status).toBe(302);
    expect(admin.headers.get('location')).toBe(`/admin/login?store=${storeA.storeId}`);
    const portal = await fetch(`${server.url}/v2.2/stores/${storeA.storeId}/customer-portal?token=abc&order_id=ord_1`, { redirect: 'manual' });
    expect(portal.status).toBe(302);
    expect(portal.headers.get('location')).toBe(`/portal/${storeA.storeId}/orders/ord_1?token=abc`);
    expect(await portal.text()).toBe('');
  });
});
