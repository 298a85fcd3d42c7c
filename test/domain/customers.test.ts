// The customer domain on its own: the value rules (e-mail, E.164, ISO 8601 date-times,
// display names, custom field typing), the upsert's transaction (a refused upsert leaves
// no declaration, value, option or event behind) and its behaviour under concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import {
  announceCustomer,
  customerEmailKey,
  displayName,
  isE164,
  isEmail,
  parseIsoDateTime,
  upsertCustomer,
} from '../../src/domain/customers.ts';
import { updateCustomerSubscriptions } from '../../src/domain/customerSubscriptions.ts';
import { Invalid } from '../../src/domain/errors.ts';
import { createStore } from '../../src/domain/stores.ts';
import { createTestDatabase } from '../support/db.ts';
import { rowCounts } from '../support/counts.ts';

let db: Database;
let storeId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  storeId = (await createStore(db.prisma, { name: 'Domain store' })).id;
});
afterAll(async () => db?.close());

async function invalid(promise: Promise<unknown>): Promise<Invalid> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Invalid);
  return error as Invalid;
}

describe('value rules', () => {
  it('accepts e-mail addresses and refuses what is not one', () => {
    for (const ok of ['a@example.com', 'first.last+tag@sub.example.co.uk', "o'neil@example.org", 'x_y-z@a-b.io']) expect(isEmail(ok), ok).toBe(true);
    for (const bad of ['', 'plain', '@example.com', 'a@', 'a@localhost', 'a..b@example.com', '.a@example.com', 'a@-example.com', 'a b@example.com', `${'x'.repeat(65)}@example.com`]) {
      expect(isEmail(bad), bad).toBe(false);
    }
  });

  it('normalises the lookup key to lower case and refuses a bad one', () => {
    expect(customerEmailKey('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(() => customerEmailKey('nope')).toThrow(Invalid);
  });

  it('checks E.164', () => {
    for (const ok of ['+14155550100', '+442071234567', '+12']) expect(isE164(ok), ok).toBe(true);
    for (const bad of ['14155550100', '+0123', '+1 415 555 0100', '+1234567890123456', '+']) expect(isE164(bad), bad).toBe(false);
  });

  it('recognises ISO 8601 date-times with a time zone that name a real instant', () => {
    expect(parseIsoDateTime('2025-03-01T09:30:00+01:00')?.toISOString()).toBe('2025-03-01T08:30:00.000Z');
    expect(parseIsoDateTime('2024-02-29T23:59:59.123Z')?.toISOString()).toBe('2024-02-29T23:59:59.123Z');
    expect(parseIsoDateTime('2025-03-01T09:30Z')?.toISOString()).toBe('2025-03-01T09:30:00.000Z');
    for (const bad of ['2025-03-01', '2025-03-01T09:30:00', '2023-02-29T00:00:00Z', '2025-13-01T00:00:00Z', '2025-01-01T24:00:00Z', 'March 1st', '2025-01-01T00:00:00+25:00']) {
      expect(parseIsoDateTime(bad), bad).toBeNull();
    }
  });

  it('makes the display name from the parts present', () => {
    expect(displayName('Ada', 'Lovelace')).toBe('Ada Lovelace');
    expect(displayName('Ada', null)).toBe('Ada');
    expect(displayName(null, 'Lovelace')).toBe('Lovelace');
    expect(displayName(null, null)).toBeNull();
  });
});

describe('upsertCustomer', () => {
  it('reports every invalid input at once, with its path', async () => {
    const error = await invalid(
      upsertCustomer(db.prisma, storeId, {
        email: 'bad',
        phoneNumber: '555',
        location: { latitude: 100, countryCode: 'usa', ianaTimeZoneName: 'Nowhere/Land' },
        customFields: { ok: 'yes', nested: { a: 1 }, '': 'empty name', long: 'x'.repeat(501), huge: 1e40 },
      }),
    );
    expect(error.issues.map((i) => i.path).sort()).toEqual(
      ['customFields.', 'customFields.huge', 'customFields.long', 'customFields.nested', 'email', 'location.countryCode', 'location.ianaTimeZoneName', 'location.latitude', 'phoneNumber'].sort(),
    );
  });

  it('treats absent and null inputs alike: the stored values stay', async () => {
    await upsertCustomer(db.prisma, storeId, { email: 'keep@example.com', firstName: 'Kim', phoneNumber: '+15550000001', location: { city: 'Oslo' } });
    const { customer, created } = await upsertCustomer(db.prisma, storeId, { email: 'KEEP@example.com', firstName: null, location: { city: null, country: 'Norway' } });
    expect(created).toBe(false);
    expect(customer).toMatchObject({ firstName: 'Kim', name: 'Kim', phoneNumbers: ['+15550000001'], location: { city: 'Oslo', country: 'Norway' } });
  });

  it('a blank name clears it', async () => {
    await upsertCustomer(db.prisma, storeId, { email: 'blank@example.com', firstName: 'Bo', lastName: 'Berg' });
    const { customer } = await upsertCustomer(db.prisma, storeId, { email: 'blank@example.com', firstName: '  ' });
    expect(customer).toMatchObject({ firstName: null, lastName: 'Berg', name: 'Berg' });
  });

  it('refuses a type conflict after declaring other new fields, and rolls all of it back', async () => {
    await upsertCustomer(db.prisma, storeId, { email: 'typed@example.com', customFields: { points: 10 } });
    const before = await rowCounts(db);
    const error = await invalid(upsertCustomer(db.prisma, storeId, { email: 'typed@example.com', customFields: { aNewOne: 'x', points: 'ten', zNewToo: true } }));
    expect(error.issues).toEqual([{ path: 'customFields.points', message: expect.stringContaining('NUMBER') }]);
    expect(await rowCounts(db)).toEqual(before);
  });

  it('stores numbers exactly and gives them back as JSON numbers', async () => {
    const { customer } = await upsertCustomer(db.prisma, storeId, { email: 'numbers@example.com', customFields: { ratio: 0.1, big: 12345678901234, neg: -3.5 } });
    const values = await db.prisma.customFieldValue.findMany({ where: { customerId: customer.id }, include: { declaration: true } });
    const byName = Object.fromEntries(values.map((v) => [v.declaration.name, v.numberValue!.toFixed()]));
    expect(byName).toEqual({ ratio: '0.1', big: '12345678901234', neg: '-3.5' });
    const event = await db.prisma.event.findFirstOrThrow({ where: { subjectId: customer.id } });
    expect(event.data).toMatchObject({ customFields: { ratio: 0.1, big: 12345678901234, neg: -3.5 } });
  });

  it("announces the same customer view as the other writers of customers (built in SQL there, in JavaScript here)", async () => {
    const email = 'view@example.com';
    await upsertCustomer(db.prisma, storeId, {
      email,
      firstName: 'Vi',
      phoneNumber: '+14155550111',
      location: { city: 'Oslo', countryCode: 'no', latitude: 59.9 },
      customFields: { vTier: 'gold', vRatio: 0.1, vVip: true, vSince: '2024-02-29T23:59:59.123+01:00', vBig: 12345678901234 },
    });
    await updateCustomerSubscriptions(db.prisma, storeId, { email: { email, subscriptions: { marketing: { subscriptionStatus: 'SUBSCRIBED' } } } });
    const { customer } = await upsertCustomer(db.prisma, storeId, {
      email,
      lastName: 'Ew',
      phoneNumber: '+14155550112',
      location: { city: 'Bergen', street1: 'Bryggen 1' },
      customFields: { vRatio: -3.5, vNew: 'fresh' },
    });
    const fromUpsert = await db.prisma.event.findFirstOrThrow({ where: { subjectId: customer.id }, orderBy: { createdAt: 'desc' } });
    expect(fromUpsert.topic).toBe('customer.updated');
    const fromOtherWriters = await db.prisma.$transaction(async (tx) => {
      await announceCustomer(tx, storeId, { customer: await tx.customer.findUniqueOrThrow({ where: { id: customer.id } }), created: false });
      return tx.event.findFirstOrThrow({ where: { subjectId: customer.id, id: { not: fromUpsert.id } }, orderBy: { createdAt: 'desc' } });
    });
    expect(fromUpsert.data).toEqual(fromOtherWriters.data);
    expect(fromUpsert.data).toMatchObject({
      name: 'Vi Ew',
      phoneNumber: '+14155550112',
      phoneNumbers: ['+14155550111', '+14155550112'],
      location: { city: 'Bergen', street1: 'Bryggen 1', countryCode: 'NO', latitude: 59.9 },
      customFields: { vTier: 'gold', vRatio: -3.5, vVip: true, vSince: '2024-02-29T22:59:59.123Z', vBig: 12345678901234, vNew: 'fresh' },
      subscriptions: [{ channel: 'email', kind: 'marketing', status: 'confirmed', address: email }],
    });
  });

  it('two concurrent upserts of the same new e-mail make one customer: one created, one updated', async () => {
    const results = await Promise.all([
      upsertCustomer(db.prisma, storeId, { email: 'twin@example.com', firstName: 'One', customFields: { twinA: 'a' } }),
      upsertCustomer(db.prisma, storeId, { email: 'TWIN@example.com', lastName: 'Two', customFields: { twinA: 'b' } }),
    ]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    expect(results[0].customer.id).toBe(results[1].customer.id);
    const customer = await db.prisma.customer.findUniqueOrThrow({ where: { storeId_email: { storeId, email: 'twin@example.com' } } });
    expect(customer).toMatchObject({ firstName: 'One', lastName: 'Two', name: 'One Two' });
    const options = await db.prisma.customFieldOption.findMany({ where: { declaration: { storeId, name: 'twinA' } } });
    expect(options.map((o) => o.value).sort()).toEqual(['a', 'b']);
    const topics = await db.prisma.event.findMany({ where: { subjectId: customer.id }, select: { topic: true } });
    expect(topics.map((t) => t.topic).sort()).toEqual(['customer.created', 'customer.updated']);
  });

  it('keeps stores apart: the same e-mail in two stores is two customers, fields declared per store', async () => {
    const second = (await createStore(db.prisma, { name: 'Second' })).id;
    const a = await upsertCustomer(db.prisma, storeId, { email: 'both@example.com', customFields: { shared: 1 } });
    const b = await upsertCustomer(db.prisma, second, { email: 'both@example.com', customFields: { shared: 'text' } });
    expect(a.created && b.created).toBe(true);
    expect(a.customer.id).not.toBe(b.customer.id);
  });
});
