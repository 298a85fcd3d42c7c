// POST /stores/{storeId}/customer-subscriptions: consent per channel and kind, stored on
// the customer found by e-mail or phone number (created when none has them), readable on
// the v3 Customer, announced as customer.created / customer.updated. Refused requests
// (the document's problem format, never a 500) write nothing. Every answer is checked
// against the reference document by call().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowCounts } from '../support/counts.ts';
import { addApiClient, call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other store' });
});
afterAll(async () => server?.close());

const post = (body: unknown, s: TestStore | { storeId: string; secret: string } = store) =>
  call(server, 'POST', `/v2.2/stores/${s.storeId}/customer-subscriptions`, { secret: s.secret, body });

const SUBSCRIPTIONS = `query($email: String!) { customer(email: $email) { id email phoneNumbers subscriptions { channel kind status address triggerAutomations changedAt } } }`;

async function customerByEmail(email: string, s: TestStore = store) {
  const res = await graphql(server, s.secret, SUBSCRIPTIONS, { email });
  expect(res.errors).toBeUndefined();
  return res.data?.customer as { id: string; email: string; phoneNumbers: string[]; subscriptions: Record<string, unknown>[] } | null;
}

async function customerByPhone(phoneNumber: string, storeId = store.storeId) {
  const key = await server.db.prisma.customerPhoneNumber.findUnique({ where: { storeId_phoneNumber: { storeId, phoneNumber } }, include: { customer: { include: { subscriptions: true } } } });
  return key?.customer ?? null;
}

describe('POST /customer-subscriptions', () => {
  it('creates the customer with both addresses and every subscription, answering the documented body', async () => {
    const res = await post({
      sms: {
        phoneNumber: '+15550000000',
        subscriptions: {
          marketing: { subscriptionStatus: 'subscribed', triggerAutomations: true, updatedAt: '2026-01-15T10:30:00Z' },
          transactional: { subscriptionStatus: 'subscribed', updatedAt: '2026-01-15T10:30:00Z' },
        },
      },
      email: { email: 'Jane.Doe@example.com', subscriptions: { marketing: { subscriptionStatus: 'subscribed' } } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Customer subscriptions updated successfully',
      updatedSubscriptions: { sms: { marketing: true, transactional: true }, email: { marketing: true } },
    });
    const customer = await customerByEmail('jane.doe@example.com');
    expect(customer).toMatchObject({ email: 'jane.doe@example.com', phoneNumbers: ['+15550000000'] });
    expect(customer!.subscriptions).toEqual([
      { channel: 'EMAIL', kind: 'MARKETING', status: 'CONFIRMED', address: 'jane.doe@example.com', triggerAutomations: false, changedAt: expect.any(String) },
      { channel: 'SMS', kind: 'MARKETING', status: 'SUBSCRIBED', address: '+15550000000', triggerAutomations: true, changedAt: '2026-01-15T10:30:00.000Z' },
      { channel: 'SMS', kind: 'TRANSACTIONAL', status: 'SUBSCRIBED', address: '+15550000000', triggerAutomations: false, changedAt: '2026-01-15T10:30:00.000Z' },
    ]);
    const events = await server.db.prisma.event.findMany({ where: { storeId: store.storeId, subjectId: customer!.id } });
    expect(events.map((e) => e.topic)).toEqual(['customer.created']);
    expect((events[0].data as { subscriptions: unknown[] }).subscriptions).toHaveLength(3);
  });

  it('creates a customer known only by a phone number, found again by the number in any formatting', async () => {
    const first = await post({ sms: { phoneNumber: '+1 (555) 010-2000', subscriptions: { marketing: { subscriptionStatus: 'confirmed' } } } });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ updatedSubscriptions: { sms: { marketing: true } } });
    const created = await customerByPhone('+15550102000');
    expect(created).toMatchObject({ email: null, phoneNumbers: ['+15550102000'] });
    expect(created!.subscriptions.map((s) => s.status)).toEqual(['CONFIRMED']);

    const again = await post({ sms: { phoneNumber: '+15550102000', subscriptions: { marketing: { subscriptionStatus: 'unsubscribed' }, transactional: { subscriptionStatus: 'subscribed' } } } });
    expect(again.status).toBe(200);
    const updated = await customerByPhone('+15550102000');
    expect(updated!.id).toBe(created!.id);
    expect(Object.fromEntries(updated!.subscriptions.map((s) => [s.kind, s.status]))).toEqual({ MARKETING: 'UNSUBSCRIBED', TRANSACTIONAL: 'SUBSCRIBED' });
    expect(await server.db.prisma.customer.count({ where: { storeId: store.storeId, phoneNumbers: { has: '+15550102000' } } })).toBe(1);
    const topics = await server.db.prisma.event.findMany({ where: { subjectId: created!.id }, orderBy: { createdAt: 'asc' } });
    expect(topics.map((e) => e.topic)).toEqual(['customer.created', 'customer.updated']);

    // The phone-only customer gets its e-mail when both are named later.
    expect((await post({ email: { email: 'late@example.com', subscriptions: {} }, sms: { phoneNumber: '+15550102000', subscriptions: {} } })).status).toBe(200);
    expect((await customerByEmail('late@example.com'))!.id).toBe(created!.id);
  });

  it('updates the customer the e-mail names and keeps the existing upsert working beside it', async () => {
    const put = await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'kim@example.com', firstName: 'Kim' } });
    expect(put.status).toBe(201);
    const res = await post({ email: { email: 'KIM@example.com', subscriptions: { marketing: { subscriptionStatus: 'unsubscribed' } } } });
    expect(res.body).toEqual({ success: true, message: 'Customer subscriptions updated successfully', updatedSubscriptions: { email: { marketing: true } } });
    const customer = await customerByEmail('kim@example.com');
    expect(customer!.id).toBe((put.body as { id: string }).id);
    expect(customer!.subscriptions).toMatchObject([{ channel: 'EMAIL', kind: 'MARKETING', status: 'UNSUBSCRIBED' }]);
    expect((await call(server, 'PUT', `/v2.2/stores/${store.storeId}/customers`, { secret: store.secret, body: { email: 'kim@example.com', lastName: 'Lee' } })).status).toBe(200);
  });

  it('does not let an older change overwrite a newer one: that subscription answers false', async () => {
    const phoneNumber = '+15550103000';
    await post({ sms: { phoneNumber, subscriptions: { marketing: { subscriptionStatus: 'unsubscribed', updatedAt: '2026-03-01T00:00:00Z' } } } });
    const stale = await post({
      sms: { phoneNumber, subscriptions: { marketing: { subscriptionStatus: 'subscribed', updatedAt: '2026-02-01T00:00:00+01:00' }, transactional: { subscriptionStatus: 'subscribed' } } },
    });
    expect(stale.body).toMatchObject({ updatedSubscriptions: { sms: { marketing: false, transactional: true } } });
    const customer = await customerByPhone(phoneNumber);
    expect(customer!.subscriptions.find((s) => s.kind === 'MARKETING')).toMatchObject({ status: 'UNSUBSCRIBED' });
  });

  it('is the v3 mutation updateCustomerSubscriptions', async () => {
    const res = await graphql(
      server,
      store.secret,
      `mutation($input: CustomerSubscriptionsInput!) { updateCustomerSubscriptions(input: $input) { created customer { email subscriptions { channel status } } updatedSubscriptions { email { marketing } sms { marketing } } } }`,
      { input: { email: { email: 'v3@example.com', subscriptions: { marketing: { subscriptionStatus: 'SUBSCRIBED' } } } } },
    );
    expect(res.data).toEqual({
      updateCustomerSubscriptions: {
        created: true,
        customer: { email: 'v3@example.com', subscriptions: [{ channel: 'EMAIL', status: 'CONFIRMED' }] },
        updatedSubscriptions: { email: { marketing: true }, sms: null },
      },
    });
  });

  it('refuses bad input with problem details naming the field, never a 500, writing nothing', async () => {
    await post({ email: { email: 'owner@example.com', subscriptions: {} } });
    await post({ sms: { phoneNumber: '+15550104000', subscriptions: {} } });
    const before = await rowCounts(server.db);
    const cases: [string, unknown, number, string[]][] = [
      ['no body', undefined, 400, ['']],
      ['an array', [], 400, ['']],
      ['neither channel', {}, 400, ['']],
      ['email without subscriptions', { email: { email: 'a@example.com' } }, 400, ['email.subscriptions']],
      ['sms without phone', { sms: { subscriptions: {} } }, 400, ['sms.phoneNumber']],
      ['phone not E.164', { sms: { phoneNumber: '555-0100', subscriptions: {} } }, 400, ['sms.phoneNumber']],
      ['bad e-mail', { email: { email: 'nope', subscriptions: {} } }, 400, ['email.email']],
      ['unknown status', { sms: { phoneNumber: '+15550105000', subscriptions: { marketing: { subscriptionStatus: 'pending' } } } }, 400, ['sms.subscriptions.marketing.subscriptionStatus']],
      ['confirmed e-mail', { email: { email: 'c@example.com', subscriptions: { marketing: { subscriptionStatus: 'confirmed' } } } }, 400, ['email.subscriptions.marketing.subscriptionStatus']],
      ['confirmed transactional', { sms: { phoneNumber: '+15550105000', subscriptions: { transactional: { subscriptionStatus: 'confirmed' } } } }, 400, ['sms.subscriptions.transactional.subscriptionStatus']],
      ['status of the wrong type', { sms: { phoneNumber: '+15550105000', subscriptions: { marketing: { subscriptionStatus: true } } } }, 400, ['sms.subscriptions.marketing.subscriptionStatus']],
      ['null where none is allowed', { email: null }, 400, ['email']],
      ['null triggerAutomations', { sms: { phoneNumber: '+15550105000', subscriptions: { marketing: { subscriptionStatus: 'subscribed', triggerAutomations: null } } } }, 400, ['sms.subscriptions.marketing.triggerAutomations']],
      ['a date that is none', { sms: { phoneNumber: '+15550105000', subscriptions: { marketing: { subscriptionStatus: 'subscribed', updatedAt: 'yesterday' } } } }, 400, ['sms.subscriptions.marketing.updatedAt']],
      ['two different customers', { email: { email: 'owner@example.com', subscriptions: {} }, sms: { phoneNumber: '+15550104000', subscriptions: {} } }, 409, ['sms.phoneNumber']],
    ];
    for (const [what, body, status, paths] of cases) {
      const res = await post(body);
      expect(res.status, `${what}: ${res.text}`).toBe(status);
      expect(res.headers.get('content-type'), what).toContain('application/problem+json');
      const errors = (res.body as { errors?: { path: string }[] }).errors ?? [];
      expect(errors.map((e) => e.path), what).toEqual(paths);
    }
    expect(await rowCounts(server.db)).toEqual(before);
  });

  it("needs customers_write, and never reaches another store's customer", async () => {
    const reader = await addApiClient(server.db, store.storeId, ['customers_read']);
    const before = await rowCounts(server.db);
    expect((await post({ email: { email: 'x@example.com', subscriptions: {} } }, { storeId: store.storeId, secret: reader.secret })).status).toBe(403);
    expect((await post({ email: { email: 'x@example.com', subscriptions: {} } }, { storeId: store.storeId, secret: other.secret })).status).toBe(403);
    expect(await rowCounts(server.db)).toEqual(before);

    // The same e-mail in another store is another customer.
    const res = await post({ email: { email: 'jane.doe@example.com', subscriptions: { marketing: { subscriptionStatus: 'unsubscribed' } } } }, other);
    expect(res.status).toBe(200);
    const theirs = await customerByEmail('jane.doe@example.com', other);
    const ours = await customerByEmail('jane.doe@example.com');
    expect(theirs!.id).not.toBe(ours!.id);
    expect(ours!.subscriptions.find((s) => s.channel === 'EMAIL')).toMatchObject({ status: 'CONFIRMED' });
  });
});
