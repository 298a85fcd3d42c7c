// A shopper's data export and erasure through each door (issue 36): v3, the REST route (its
// document streamed) and the dashboard's buttons each work and each refuse a caller without
// customers_privacy; the whole store's erasure is a merchant user's only. The service runs with
// its log captured at debug level while a person's data goes through every door and through the
// webhook dispatcher (to a subscriber that quotes what it refuses): none of it may be logged.
import type { AddressInfo } from 'node:net';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/observability/logger.ts';
import { createApp, type App } from '../../src/process/server.ts';
import { dashboard } from '../../src/web/dashboard/routes.ts';
import { createTestDatabase } from '../support/db.ts';
import { GRACE, ZOE, seedPerson, startEchoReceiver, subscribeToEverything, valuesIn, type EchoReceiver, type SeededPerson } from '../support/privacyFixtures.ts';
import { addApiClient, call, createTestStore, graphql, type TestServer, type TestStore } from '../support/server.ts';
import { startTestDispatcher, waitFor } from '../webhooks/support.ts';
import { signedIn, WebClient } from '../web/helpers.ts';
import { testContexts } from '../support/contexts.ts';

let server: TestServer;
let app: App;
let logger: Logger;
let store: TestStore;
let receiver: EchoReceiver;
let zoe: SeededPerson;
let grace: SeededPerson;
/** Every line the service logged. */
const logged: string[] = [];

const without = (scope: Scope) => SCOPES.filter((s) => s !== scope);

interface ExportDocument {
  format: string;
  version: number;
  storeId: string;
  generatedAt: string;
  subject: { customerIds: string[]; emails: string[]; phoneNumbers: string[] };
  records: { kind: string; id: string; data: Record<string, unknown> }[];
}

beforeAll(async () => {
  const db = await createTestDatabase();
  const config = { ...loadConfig({ LOG_LEVEL: 'debug' }), webhooksAllowLoopback: true };
  logger = createLogger('debug', { write: (line: string) => void logged.push(line) });
  app = createApp({ db, config, logger });
  app.server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  server = {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    db,
    app,
    config,
    async close() {
      await app.shutdown(1_000);
      await db.close();
    },
  };
  store = await createTestStore(db);
  receiver = await startEchoReceiver();
  await subscribeToEverything(server, store, receiver.url);
  zoe = await seedPerson(server, store, ZOE);
  grace = await seedPerson(server, store, GRACE);
  // The dispatcher logs with the service's logger: every delivery is refused with the body quoted, then discarded.
  const dispatcher = startTestDispatcher(db, { logger });
  try {
    await waitFor(async () => (await db.prisma.webhookDelivery.count({ where: { status: 'PENDING' } })) === 0, 'every delivery discarded', 60_000, 50);
  } finally {
    await dispatcher.stop(100);
  }
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const EXPORT_QUERY = `query($email: String, $customerId: ID, $first: Int, $after: String) {
  customerDataExport(email: $email, customerId: $customerId) {
    format version storeId subject { customerIds emails phoneNumbers }
    records(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { kind id data } }
  } }`;

const ERASE_MUTATION = `mutation($input: CustomerEraseInput!) { customerErase(input: $input) { customerIds total eventId counts { customers orders auditEntries } } }`;

describe('v3', () => {
  it('pages through the records forward with cursors, and refuses paging backward', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res = await graphql(server, store.secret, EXPORT_QUERY, { email: GRACE.email, first: 9, after });
      expect(res.errors).toBeUndefined();
      const exported = (res.data as { customerDataExport: { format: string; version: number; subject: { customerIds: string[] }; records: { pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: { kind: string; id: string }[] } } }).customerDataExport;
      expect(exported).toMatchObject({ format: 'customer-data-export', version: 1, subject: { customerIds: [grace.customerId, grace.phoneProfileId] } });
      seen.push(...exported.records.nodes.map((n) => `${n.kind}:${n.id}`));
      if (!exported.records.pageInfo.hasNextPage) break;
      after = exported.records.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(`ORDER:${grace.orderIds[0]}`);
    expect(seen.length).toBeGreaterThan(30);

    const backward = await graphql(server, store.secret, `query($email: String) { customerDataExport(email: $email) { records(last: 5) { nodes { id } } } }`, { email: GRACE.email });
    expect(backward.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    const otherPerson = await graphql(server, store.secret, EXPORT_QUERY, { email: ZOE.email, first: 5, after });
    expect(otherPerson.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a caller without customers_privacy, and bad names of the person', async () => {
    const secret = (await addApiClient(server.db, store.storeId, without('customers_privacy'))).secret;
    const exported = await graphql(server, secret, EXPORT_QUERY, { email: GRACE.email });
    expect(exported.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const erased = await graphql(server, secret, ERASE_MUTATION, { input: { email: GRACE.email } });
    expect(erased.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await graphql(server, store.secret, ERASE_MUTATION, { input: {} })).errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect((await graphql(server, store.secret, ERASE_MUTATION, { input: { email: GRACE.email, customerId: grace.customerId } })).errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect((await graphql(server, store.secret, ERASE_MUTATION, { input: { customerId: 'cus_nobody' } })).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(await server.db.prisma.customer.findUniqueOrThrow({ where: { id: grace.customerId } })).toMatchObject({ redactedAt: null, email: GRACE.email });
  });

  it('keeps the whole store\'s erasure from API clients, whatever their scopes', async () => {
    const res = await graphql(server, store.secret, `mutation($id: ID!) { storeCustomerDataErase(confirmStoreId: $id) { total } }`, { id: store.storeId });
    expect(res.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(await server.db.prisma.customer.count({ where: { storeId: store.storeId, redactedAt: { not: null } } })).toBe(0);
  });
});

describe('REST', () => {
  const exportPath = (query: string) => `/v2.2/stores/${store.storeId}/customers/data-export?${query}`;

  it('streams the export as one documented JSON document', async () => {
    const res = await call(server, 'GET', exportPath(`email=${encodeURIComponent(GRACE.email.toUpperCase())}`), { secret: store.secret });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="customer-data-${grace.customerId}.json"`);
    const document = res.body as ExportDocument;
    expect(document).toMatchObject({ format: 'customer-data-export', version: 1, storeId: store.storeId, subject: { emails: [GRACE.email] } });
    expect(new Set(document.records.map((r) => r.kind))).toEqual(new Set(['customer', 'order', 'return', 'custom_event', 'storefront_event', 'webhook_event', 'audit_entry']));
    expect(document.records.filter((r) => r.kind === 'order').map((r) => r.id).sort()).toEqual([...grace.orderIds].sort());
    expect(valuesIn(res.text, ZOE)).toEqual([]);
    const byId = await call(server, 'GET', exportPath(`customer_id=${grace.customerId}`), { secret: store.secret });
    expect((byId.body as ExportDocument).records.map((r) => r.id)).toEqual(document.records.map((r) => r.id));
  });

  it('refuses without customers_privacy (403), a missing, double or repeated name (400) and an unknown customer (404)', async () => {
    const secret = (await addApiClient(server.db, store.storeId, without('customers_privacy'))).secret;
    expect((await call(server, 'GET', exportPath(`email=${GRACE.email}`), { secret })).status).toBe(403);
    expect((await call(server, 'POST', `/v2.2/stores/${store.storeId}/customers/erase`, { secret, body: { email: GRACE.email } })).status).toBe(403);
    for (const query of ['', `email=${GRACE.email}&customer_id=${grace.customerId}`, `email=${GRACE.email}&email=${GRACE.email}`, 'email=not-an-email']) {
      const res = await call(server, 'GET', exportPath(query), { secret: store.secret });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await call(server, 'GET', exportPath('customer_id=cus_nobody'), { secret: store.secret })).status).toBe(404);
    const erasePath = `/v2.2/stores/${store.storeId}/customers/erase`;
    expect((await call(server, 'POST', erasePath, { secret: store.secret, body: { email: GRACE.email, extra: 1 } })).status).toBe(400);
    expect((await call(server, 'POST', erasePath, { secret: store.secret, body: {} })).status).toBe(400);
    expect((await call(server, 'POST', erasePath, { secret: store.secret, body: { customerId: 'cus_nobody' } })).status).toBe(404);
  });

  it('documents both routes as extensions of the customers group', async () => {
    const document = (await call(server, 'GET', '/v2.2/openapi.json')).body as { paths: Record<string, Record<string, { tags: string[]; 'x-extension'?: boolean; 'x-required-scopes': string[] }>> };
    for (const [path, method] of [['/stores/{storeId}/customers/data-export', 'get'], ['/stores/{storeId}/customers/erase', 'post']]) {
      expect(document.paths[path][method]).toMatchObject({ tags: ['Customers'], 'x-extension': true, 'x-required-scopes': ['customers_privacy'] });
    }
  });

  it('erases the person and answers the counts; again, zero', async () => {
    const erasePath = `/v2.2/stores/${store.storeId}/customers/erase`;
    const first = await call(server, 'POST', erasePath, { secret: store.secret, body: { email: ZOE.email }, headers: { 'idempotency-key': 'erase-zoe' } });
    expect(first.status).toBe(200);
    const body = first.body as { customerIds: string[]; counts: Record<string, number>; total: number; eventId: string };
    expect(body.customerIds).toEqual([zoe.customerId, zoe.phoneProfileId]);
    expect(body.counts).toMatchObject({ customers: 2, orders: 3, returns: 2 });
    expect(body.total).toBe(Object.values(body.counts).reduce((a, b) => a + b, 0));
    expect(body.eventId).toMatch(/^evt_/);
    const again = await call(server, 'POST', erasePath, { secret: store.secret, body: { customerId: zoe.customerId } });
    expect(again.body).toMatchObject({ total: 0, eventId: null });
  });
});

describe('dashboard', () => {
  let web: WebClient;
  beforeAll(async () => {
    web = await signedIn(server, store.storeId);
  });

  it('downloads the export from the customer page', async () => {
    const page = await web.get(`/admin/customers/${grace.customerId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="customer-export"');
    expect(page.text).toContain('id="customer-erase"');
    const download = await web.get(`/admin/customers/${grace.customerId}/export`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="customer-data-${grace.customerId}.json"`);
    expect(download.headers.get('content-security-policy')).toContain("default-src 'none'");
    const document = JSON.parse(download.text) as ExportDocument;
    expect(document.subject.customerIds).toEqual([grace.customerId, grace.phoneProfileId]);
    expect(document.records.filter((r) => r.kind === 'return').map((r) => r.id).sort()).toEqual([...grace.returnIds].sort());
    expect((await web.get('/admin/customers/cus_nobody/export')).status).toBe(404);
  });

  it('erases from the customer page once confirmed, then says so', async () => {
    const page = await web.get(`/admin/customers/${grace.customerId}`);
    const csrf = WebClient.csrfOf(page.text);
    const unconfirmed = await web.post(`/admin/customers/${grace.customerId}/erase`, { csrf });
    expect(unconfirmed.status).toBe(303);
    expect((await web.get(unconfirmed.headers.get('location')!)).text).toContain('Nothing was erased: tick the box');
    expect(await server.db.prisma.customer.findUniqueOrThrow({ where: { id: grace.customerId } })).toMatchObject({ redactedAt: null });
    const erasure = await web.post(`/admin/customers/${grace.customerId}/erase`, { csrf, confirm: 'yes' });
    expect(erasure.status).toBe(303);
    const erased = await web.get(erasure.headers.get('location')!);
    expect(erased.text).toMatch(/id="flash"[^>]*>Erased: \d+ records changed/);
    expect(erased.text).toContain('id="customer-erased"');
    expect(erased.text).not.toContain('id="customer-erase"');
    expect(valuesIn(erased.text, GRACE)).toEqual([]);
    expect(await server.db.prisma.customer.findUniqueOrThrow({ where: { id: grace.customerId } })).toMatchObject({ email: null, firstName: '[redacted]' });
  });

  it('refuses a session without customers_privacy, and a signed-out visitor', async () => {
    const user = await server.db.prisma.merchantUser.findFirstOrThrow({ where: { storeId: store.storeId } });
    const storeRow = await server.db.prisma.store.findUniqueOrThrow({ where: { id: store.storeId } });
    const ctx = testContexts(server.db)({
      auth: { store: storeRow, client: { id: user.id, name: user.email }, scopes: new Set(without('customers_privacy')), merchantUser: user } as never,
      door: 'web',
      requestId: 'test',
    });
    const request = (method: string, segments: string[], form: Record<string, string> = {}) =>
      dashboard({ ctx, session: { storeName: storeRow.name, email: user.email, csrfToken: 'x' }, method, segments, query: new URLSearchParams(), form: new URLSearchParams(form), secure: false });
    expect((await request('GET', ['customers', zoe.customerId, 'export'])).status).toBe(403);
    expect((await request('POST', ['customers', zoe.phoneProfileId, 'erase'], { confirm: 'yes' })).status).toBe(403);
    expect((await request('POST', ['settings', 'privacy', 'erase-store'], { confirmStoreId: store.storeId })).status).toBe(403);

    const visitor = new WebClient(server);
    expect((await visitor.get(`/admin/customers/${zoe.customerId}/export`)).status).toBe(303);
    expect((await visitor.request('POST', `/admin/customers/${zoe.customerId}/erase`, { confirm: 'yes' })).status).toBe(401);
  });

  it("erases every shopper's data of the store from Settings → Privacy, once the store's id is typed", async () => {
    const bystander = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'bystander@example.net', firstName: 'Bystander' } });
    const leaving = await createTestStore(server.db, { name: 'Leaving' });
    await seedPerson(server, leaving, { ...GRACE, tag: 'gx', email: 'gracie.leaves@example.org' });
    const owner = await signedIn(server, leaving.storeId, 'leaver@example.com');
    const page = await owner.get('/admin/settings/privacy');
    expect(page.status).toBe(200);
    const csrf = WebClient.csrfOf(page.text);
    const wrongStore = await owner.post('/admin/settings/privacy/erase-store', { csrf, confirmStoreId: store.storeId });
    expect(wrongStore.status).toBe(303);
    expect((await owner.get(wrongStore.headers.get('location')!)).text).toContain('Nothing was erased: ');
    const erasure = await owner.post('/admin/settings/privacy/erase-store', { csrf, confirmStoreId: leaving.storeId });
    expect(erasure.status).toBe(303);
    expect((await owner.get(erasure.headers.get('location')!)).text).toMatch(/id="flash"[^>]*>Erased: \d+ records changed/);
    expect(await server.db.prisma.customer.count({ where: { storeId: leaving.storeId, redactedAt: null } })).toBe(0);
    expect(await server.db.prisma.customer.findUniqueOrThrow({ where: { id: (bystander.body as { id: string }).id } })).toMatchObject({ email: 'bystander@example.net', firstName: 'Bystander', redactedAt: null });
  });
});

describe('logs', () => {
  it('hold none of the values that went through every door and the dispatcher, nor those quoted by errors', async () => {
    // More of the person through the doors that have not seen them yet: the v3 REST door, the compat door's notes, the portal and the dashboard's search.
    const person = { ...ZOE, email: 'zoelle.again@example.com' };
    expect((await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: person.email, firstName: ZOE.firstName, phoneNumber: 'nope' } })).status).toBe(400);
    await call(server, 'GET', `/v3/rest/customer?email=${encodeURIComponent(person.email)}`, { secret: store.secret });
    const returned = await server.db.prisma.return.findUniqueOrThrow({ where: { id: grace.returnIds[0] } });
    expect((await call(server, 'POST', `/api/v1/warehouse/return/${returned.number}/note`, { secret: store.secret, body: { content: ZOE.note } })).status).toBe(200);
    const shopper = new WebClient(server);
    const lookup = await shopper.get(`/portal/${store.storeId}`);
    await shopper.post(`/portal/${store.storeId}/lookup`, { csrf: WebClient.csrfOf(lookup.text), order: '#1001', email: person.email });
    const web = await signedIn(server, store.storeId, 'searcher@example.com');
    expect((await web.get(`/admin/customers?q=${encodeURIComponent(person.email)}`)).status).toBe(200);
    // What an internal failure would log: a Prisma validation error prints the arguments it refused, PostgreSQL quotes the value it could not read.
    logger.error('unhandled error in door', {
      error: new Prisma.PrismaClientValidationError(`Invalid \`prisma.customer.create()\` invocation:\n{ data: { email: "${person.email}", firstName: "${ZOE.firstName}", phone: ${ZOE.phone} } }`, { clientVersion: '7' }),
    });
    logger.warn('database refused the input', {
      error: Object.assign(new Error(`invalid input syntax for type json: "${ZOE.street}"`), { code: '22P02', detail: `Token "${ZOE.city}" is invalid.`, where: `JSON data, line 1: {"email":"${person.email}` }),
    });
    logger.info('a field named like personal data', { email: person.email, order: { shippingAddress: { address1: ZOE.street } } });

    const text = logged.join('');
    expect(text).toContain('"msg":"request"');
    expect(text).toContain('webhook delivery discarded after its last attempt');
    expect(text).toContain('22P02');
    expect(valuesIn(text, ZOE)).toEqual([]);
    expect(valuesIn(text, { ...ZOE, email: person.email })).toEqual([]);
    expect(valuesIn(text, GRACE)).toEqual([]);
  });
});
