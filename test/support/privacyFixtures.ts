// A person seeded into every table that can hold their data, through the doors and the
// domain, and a scan of every text and JSON column of every table for their values: what the
// privacy tests (export and erasure) compare against.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createProduct } from '../../src/domain/catalog.ts';
import { recordCustomEvent } from '../../src/domain/customEvents.ts';
import { updateCustomerSubscriptions } from '../../src/domain/customerSubscriptions.ts';
import { createFulfillment, updateShipmentStatus } from '../../src/domain/fulfillments.ts';
import { createReturn } from '../../src/domain/returns/creation.ts';
import { importReturns } from '../../src/domain/returns/imports.ts';
import { addReturnNote } from '../../src/domain/returns/operations.ts';
import { recordStorefrontEvent } from '../../src/domain/storefrontEvents.ts';
import { call, graphql, type TestServer, type TestStore } from './server.ts';

export interface PersonValues {
  /** A short tag making the person's ids unique in the store. */
  tag: string;
  email: string;
  firstName: string;
  lastName: string;
  /** E.164; an SMS consent made a profile with it before the customer gave it too. */
  phone: string;
  /** The phone as a shopper types it on an order without e-mail. */
  phoneTyped: string;
  street: string;
  city: string;
  postalCode: string;
  /** Where a carrier scanned the parcel last (the tracking event's state and country). */
  region: string;
  /** The return's postage label, printed with the person's name and address. */
  label: string;
  nickname: string;
  tier: string;
  comment: string;
  note: string;
  anonymousId: string;
  colour: string;
  gift: string;
}

export const ZOE: PersonValues = {
  tag: 'zq',
  email: 'zoelle.quibbleworth@example.com',
  firstName: 'Zoëlle',
  lastName: 'Quibbleworth',
  phone: '+14155550199',
  phoneTyped: '(415) 555-0199',
  street: '12 Marigold Terrace',
  city: 'Lindenfield',
  postalCode: 'QX9 4ZZ',
  region: 'Upper Wold',
  label: 'https://labels.example/zq-5521.pdf',
  nickname: 'Zelly Q',
  tier: 'platinum-zq',
  comment: 'The zipper broke on day two, call me on +1 415 555 0199',
  note: 'Zoëlle phoned about the parcel',
  anonymousId: 'anon-zq-7781',
  colour: 'chartreuse-zq',
  gift: 'For Zoëlle with love',
};

export const GRACE: PersonValues = {
  tag: 'gh',
  email: 'gracie.hopperton@example.org',
  firstName: 'Gracie',
  lastName: 'Hopperton',
  phone: '+442071234567',
  phoneTyped: '020 7123 4567',
  street: '7 Elmwood Row',
  city: 'Ashbury',
  postalCode: 'AB1 2CD',
  region: 'Lower Fenmarsh',
  label: 'https://labels.example/gh-9034.pdf',
  nickname: 'Gee Hop',
  tier: 'silver-gh',
  comment: 'Colour was not as shown, reach me at +44 20 7123 4567',
  note: 'Gracie asked for a refund',
  anonymousId: 'anon-gh-1212',
  colour: 'vermilion-gh',
  gift: 'Happy birthday Gracie',
};

/** The texts the scans look for (folded as the search documents are), and the phone number's digits. */
export function searchedValues(p: PersonValues): { texts: string[]; digits: string[] } {
  return {
    texts: [p.email, p.firstName, p.lastName, p.street, p.city, p.postalCode, p.region, p.label, p.nickname, p.tier, p.comment, p.note, p.anonymousId, p.colour, p.gift],
    digits: [p.phone.replace(/\D/g, '').slice(-9)],
  };
}

/** What the database's search_fold does, for texts read outside it (logs, webhook bodies). */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

/** The person's values present in a text (folded), and their phone's digits in its digits. */
export function valuesIn(text: string, p: PersonValues): string[] {
  const { texts, digits } = searchedValues(p);
  const folded = fold(text);
  const bareDigits = text.replace(/\D/g, '');
  return [...texts.filter((v) => folded.includes(fold(v))), ...digits.filter((d) => bareDigits.includes(d))];
}

export interface Hit {
  table: string;
  column: string;
  value: string;
}

/**
 * Every text and JSON column of every table (read from the database's catalog, so a table added
 * later is scanned too) that holds one of the person's values, folded, or their phone's digits.
 */
export async function scanDatabase(db: Database, p: PersonValues): Promise<Hit[]> {
  const columns = await db.sql.query<{ table: string; column: string }>(
    `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
     WHERE table_schema = current_schema() AND (data_type IN ('text', 'character varying', 'json', 'jsonb') OR udt_name IN ('_text', '_varchar', '_jsonb'))
     ORDER BY table_name, column_name`,
    [],
  );
  const { texts, digits } = searchedValues(p);
  const hits: Hit[] = [];
  for (const { table, column } of columns) {
    const found = await db.sql.query<{ value: string }>(
      `SELECT v AS value FROM unnest($1::text[]) v WHERE EXISTS (SELECT 1 FROM "${table}" t WHERE strpos(search_fold(t."${column}"::text), search_fold(v)) > 0)
       UNION ALL
       SELECT d FROM unnest($2::text[]) d WHERE EXISTS (SELECT 1 FROM "${table}" t WHERE strpos(coalesce(search_digits(t."${column}"::text), ''), d) > 0)`,
      [texts, digits],
    );
    hits.push(...found.map(({ value }) => ({ table, column, value })));
  }
  return hits;
}

/** Stored answers of Idempotency-Key requests (bytes, so outside the text scan) that quote the person. */
export async function storedAnswersQuoting(db: Database, p: PersonValues): Promise<number> {
  const rows = await db.sql.query<{ body: string }>(`SELECT convert_from(body, 'UTF8') AS body FROM "IdempotentRequest"`, []);
  return rows.filter((row) => valuesIn(row.body, p).length > 0).length;
}

/** Every table's rows as one digest each: what must not move when nothing changes. */
export async function tableDigests(db: Database): Promise<Record<string, string>> {
  const tables = await db.sql.query<{ table: string }>(
    `SELECT table_name AS "table" FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`,
    [],
  );
  const digests: Record<string, string> = {};
  for (const { table } of tables) {
    const [row] = await db.sql.query<{ digest: string | null }>(`SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) AS digest FROM "${table}" t`, []);
    digests[table] = row.digest ?? 'empty';
  }
  return digests;
}

/** A webhook receiver that answers 400 quoting the body it got (a subscriber that echoes what it refuses), or 200 once told to. */
export interface EchoReceiver {
  url: string;
  bodies: string[];
  accept(): void;
  close(): Promise<void>;
}

export async function startEchoReceiver(): Promise<EchoReceiver> {
  let accepting = false;
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      if (accepting) res.writeHead(200).end('ok');
      else res.writeHead(400, { 'content-type': 'application/json' }).end(`{"refused":${body}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    accept: () => {
      accepting = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SeededPerson {
  customerId: string;
  /** The e-mail-less profile an SMS consent made before the customer gave the same number. */
  phoneProfileId: string;
  orderIds: string[];
  returnIds: string[];
  customEventIds: string[];
  storefrontEventIds: string[];
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * Seeds the person into every place the service keeps a shopper's data: a phone-only profile
 * (SMS consent), the customer with custom fields and location (REST, with an Idempotency-Key, so
 * its answer is kept), e-mail consent, a custom event, two storefront events (one linked by the
 * browser id only), three orders (REST; the third carries only the phone number, typed another
 * way), a fulfillment with a tracking scan, a return with a comment, label and notes, an imported
 * return, and a persisted GraphQL document quoting the e-mail. The outbox events (and the audit
 * trail) follow from these.
 */
export async function seedPerson(server: TestServer, store: TestStore, p: PersonValues): Promise<SeededPerson> {
  const { prisma } = server.db;
  const storeId = store.storeId;
  const phoneProfile = await updateCustomerSubscriptions(prisma, storeId, { sms: { phoneNumber: p.phone, subscriptions: { marketing: { subscriptionStatus: 'SUBSCRIBED' } } } });

  const upsert = await call(server, 'PUT', `/v2.2/stores/${storeId}/customers`, {
    secret: store.secret,
    headers: { 'idempotency-key': `upsert-${p.tag}` },
    body: {
      email: p.email.toUpperCase(),
      firstName: p.firstName,
      lastName: p.lastName,
      phoneNumber: p.phone,
      location: { street1: p.street, city: p.city, postalCode: p.postalCode, countryCode: 'GB', latitude: 51.5, longitude: -0.12 },
      customFields: { nickname: p.nickname, loyaltyTier: p.tier, birthday: '1990-04-12T00:00:00Z', visits: 12 },
    },
  });
  expect(upsert.status).toBe(201);
  const customerId = (upsert.body as { id: string }).id;
  await updateCustomerSubscriptions(prisma, storeId, { email: { email: p.email, subscriptions: { marketing: { subscriptionStatus: 'SUBSCRIBED' } } } });

  const custom = await recordCustomEvent(prisma, storeId, {
    eventName: 'Viewed lookbook',
    customer: { email: p.email },
    data: { favouriteColour: p.colour, score: 7, $extra: { giftMessage: p.gift } },
    uniqueId: `lookbook-${p.email}`,
  });
  const checkout = await recordStorefrontEvent(prisma, storeId, {
    eventId: `checkout-${p.tag}`,
    eventName: 'checkout_completed',
    timestamp: '2026-11-20T10:00:00Z',
    source: 'AIMERCE',
    customerEmail: p.email,
    anonymousId: p.anonymousId,
    urlWithParams: `https://shop.example/thanks?email=${encodeURIComponent(p.email)}`,
    checkout: { email: p.email, phone: p.phone, shippingAddress: { firstName: p.firstName, address1: p.street, city: p.city, zip: p.postalCode } },
  });
  const browsing = await recordStorefrontEvent(prisma, storeId, {
    eventId: `view-${p.tag}`,
    eventName: 'page_viewed',
    timestamp: '2026-11-20T10:05:00Z',
    source: 'AIMERCE',
    anonymousId: p.anonymousId,
  });

  const address = { address1: p.street, city: p.city, postalCode: p.postalCode, country: 'GB' };
  const orderIds: string[] = [];
  for (const [i, customer] of [
    { email: p.email, phoneNumber: p.phone, name: `${p.firstName} ${p.lastName}`, firstName: p.firstName, lastName: p.lastName },
    { email: p.email.toUpperCase(), firstName: p.firstName, lastName: p.lastName },
    { phoneNumber: p.phoneTyped, name: `${p.firstName} ${p.lastName}` },
  ].entries()) {
    const placed = await call(server, 'POST', `/v2.2/stores/${storeId}/orders`, {
      secret: store.secret,
      body: {
        orderId: `ORD-${p.tag}-${i + 1}`,
        createdAt: '2026-11-01T09:00:00Z',
        lineItems: [
          { id: `L${i}-1`, productId: 'ext-tee', title: 'Trail Tee', sku: 'TEE-1', quantity: 2, price: 25 },
          { id: `L${i}-2`, productId: 'ext-cap', title: 'Cap', sku: 'CAP-1', quantity: 1, price: 10 },
        ],
        customer,
        shipping: { method: 'Ground', cost: 5, address },
        billingAddress: address,
        totalPrice: 65,
        currency: 'USD',
      },
    });
    expect(placed.status).toBe(200);
    orderIds.push((placed.body as { orderId: string }).orderId);
  }

  await createFulfillment(prisma, storeId, orderIds[0], { fulfillmentId: `F-${p.tag}`, lineItems: [{ id: 'L0-1', quantity: 2 }], tracking: { carrier: 'UPS', code: `1Z${p.tag}` } });
  await updateShipmentStatus(prisma, storeId, orderIds[0], `F-${p.tag}`, {
    status: 'delivered',
    message: `Left with ${p.firstName} at the porch`,
    datetime: '2026-11-03T12:00:00Z',
    location: { city: p.city, state: p.region, postalCode: p.postalCode, country: p.region },
  });

  const created = await createReturn(prisma, storeId, {
    orderId: orderIds[0],
    items: [{ lineItemId: 'L0-1', quantity: 1, reason: 'Too small', customerComment: p.comment }],
    originAddress: { line1: p.street, city: p.city, state: 'Westshire', postalCode: p.postalCode, country: 'GB' },
    label: { trackingNumber: `1ZRET${p.tag}`, carrier: 'ups', postageLabelUrl: p.label },
    notes: p.note,
  });
  await addReturnNote(prisma, storeId, { id: created.id }, `Spoke to ${p.firstName} ${p.lastName}`);
  const product = await createProduct(prisma, storeId, { title: 'Gift card sleeve', sku: `SLV-${p.tag}` });
  const [imported] = await importReturns(prisma, storeId, [
    {
      externalReferenceId: `RMA-${p.tag}`,
      customer: { email: p.email, firstName: p.firstName, lastName: p.lastName },
      items: [{ productId: product.id, quantity: 1, reason: `Bought for ${p.nickname}, it does not fit` }],
      shippingAddress: { name: `${p.firstName} ${p.lastName}`, line1: p.street, city: p.city, postalCode: p.postalCode, country: 'GB', phone: p.phone },
    },
  ]);
  if (imported.status !== 'created') throw new Error(`import failed: ${imported.error}`);

  const lookup = `query Lookup${p.tag} { customer(email: "${p.email}") { id } }`;
  const persisted = await call(server, 'POST', '/v3/graphql', {
    secret: store.secret,
    body: { query: lookup, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(lookup) } } },
  });
  expect(persisted.status).toBe(200);

  return {
    customerId,
    phoneProfileId: phoneProfile.customer.id,
    orderIds,
    returnIds: [created.id, imported.returnId],
    customEventIds: [custom.event.id],
    storefrontEventIds: [checkout.id, browsing.id],
  };
}

/** A webhook subscription of every topic to `url`, made through v3 (so the outbox keeps bodies for it). */
export async function subscribeToEverything(server: TestServer, store: TestStore, url: string): Promise<string> {
  const topics = await graphql(server, store.secret, '{ webhookTopics }');
  const created = await graphql(server, store.secret, 'mutation($input: WebhookSubscriptionCreateInput!) { webhookSubscriptionCreate(input: $input) { id } }', {
    input: { url, topics: (topics.data as { webhookTopics: string[] }).webhookTopics },
  });
  expect(created.errors).toBeUndefined();
  return (created.data as { webhookSubscriptionCreate: { id: string } }).webhookSubscriptionCreate.id;
}
