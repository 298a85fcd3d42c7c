// Demo data for a fresh database: a merchant linked to a fulfillment service, a catalogue of
// product families and variants with stock at both stores' locations (one level oversold),
// purchase orders and inbound shipments, customers with custom fields and consent, 200
// orders over six weeks, returns in every status an operation leads to, and a disabled
// webhook subscription with a finished delivery log (src/domain/demo/*).
//
// Everything is made through the domain's own functions, in ONE transaction, so a crash
// leaves no half-seeded database; an advisory lock serialises concurrent seeds and a database
// that already has the demo store is left as it is. Every choice comes from a generator with
// a fixed seed and every date is relative to the seeding time, so each fresh database gets
// the same data; only the ids (which the domain draws at random) and timestamps differ.
//
// Cost: some 10,200 statements, because every record goes through the rules that write it:
// a two-line order is 19 (store counter, location, products, customer, order, group, lines,
// coverage, event, and 4 per stock level it commits: lock and read, update, ledger row, event),
// a fulfillment ~13, a return operation ~8, a return ~15. At ~0.85 ms a statement (Prisma's
// client ~0.4 ms of CPU, PGlite's WebAssembly PostgreSQL the rest) that is ~8.5 s on PGlite.
import crypto from 'node:crypto';
import { createMerchantUser } from './merchantUsers.ts';
import { SCOPES } from '../auth/scopes.ts';
import { newId } from './ids.ts';
import { updateBillingSettings } from './invoices.ts';
import { createLocation, setDefaultLocation } from './inventory.ts';
import { createApiClient, linkFulfillmentService } from './stores.ts';
import type { Db, Tx } from './tx.ts';
import { recordAuditContext } from './audit.ts';
import { inRequestScope } from '../observability/requestScope.ts';
import { seedCatalog, seedStock } from './demo/catalog.ts';
import type { DemoContext } from './demo/context.ts';
import { DEMO_RANDOM_SEED, Random } from './demo/random.ts';
import { seedReturns } from './demo/returns.ts';
import { planCustomers, planOrders, seedCustomers, seedOrders } from './demo/sales.ts';
import { seedSupply } from './demo/supply.ts';
import { createDemoSubscription, seedWebhookHistory } from './demo/webhooks.ts';

export const DEMO_STORE_NAME = 'Demo Outfitters';
const DEMO_CLIENT_NAME = 'Demo (all scopes)';
/** Serialises concurrent seeds (two CLIs, a CLI and a starting server) on one database. */
const SEED_LOCK_KEY = 7_340_112;
/** Seeding takes a few seconds; a slow machine or a busy PostgreSQL gets ample room. */
const SEED_TIMEOUT_MS = 180_000;

export const DEMO_USER_EMAIL = 'demo@example.com';

/** `seeded: false` when the demo store was already there (its secret and password are stored only as hashes). */
export type DemoSeed =
  | { seeded: true; storeId: string; secret: string; login: { email: string; password: string } }
  | { seeded: false; storeId: string };

/** The demo data and a dashboard user with a random password, when it is seeded now; the audit trail names the `demo-seed` job. */
export function seedDemo(db: Db): Promise<DemoSeed> {
  return inRequestScope({ door: 'job', actor: { kind: 'job', name: 'demo-seed' } }, () => seedInTransaction(db));
}

function seedInTransaction(db: Db): Promise<DemoSeed> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
      await recordAuditContext(tx);
      const existing = await tx.store.findFirst({
        where: { name: DEMO_STORE_NAME, kind: 'MERCHANT', apiClients: { some: { name: DEMO_CLIENT_NAME } } },
        select: { id: true },
      });
      if (existing) return { seeded: false as const, storeId: existing.id };
      const context = await seedStores(tx, new Date());
      await seedEverything(context);
      const client = await createApiClient(tx, { storeId: context.storeId, name: DEMO_CLIENT_NAME, scopes: SCOPES });
      const password = crypto.randomBytes(12).toString('base64url');
      await createMerchantUser(tx, { storeId: context.storeId, email: DEMO_USER_EMAIL, password });
      return { seeded: true as const, storeId: context.storeId, secret: client.secret, login: { email: DEMO_USER_EMAIL, password } };
    },
    { timeout: SEED_TIMEOUT_MS, maxWait: SEED_TIMEOUT_MS },
  );
}

/** The merchant with its origin address, the fulfillment service it is linked to, and a location of each. */
async function seedStores(tx: Tx, now: Date): Promise<DemoContext> {
  const storeId = newId('store');
  const serviceId = newId('store');
  await tx.store.create({
    data: {
      id: storeId,
      name: DEMO_STORE_NAME,
      kind: 'MERCHANT',
      originName: 'Demo Outfitters',
      originStreet1: '1 Market Street',
      originCity: 'San Francisco',
      originStateCode: 'CA',
      originPostalCode: '94105',
      originCountryCode: 'US',
    },
  });
  await tx.store.create({ data: { id: serviceId, name: 'Rapid Fulfilment Co', kind: 'FULFILLMENT_SERVICE' } });
  await linkFulfillmentService(tx, storeId, serviceId);
  const warehouse = await createLocation(tx, storeId, {
    name: 'Main Warehouse',
    street1: '500 Industrial Way',
    city: 'Oakland',
    stateCode: 'CA',
    postalCode: '94607',
    countryCode: 'US',
    phone: '+1 510 555 0100',
  });
  const serviceLocation = await createLocation(tx, serviceId, {
    name: 'Rapid Reno DC',
    company: 'Rapid Fulfilment Co',
    street1: '20 Logistics Pkwy',
    city: 'Reno',
    stateCode: 'NV',
    postalCode: '89502',
    countryCode: 'US',
  });
  await setDefaultLocation(tx, storeId, warehouse.id);
  await setDefaultLocation(tx, serviceId, serviceLocation.id);
  return { tx, storeId, serviceId, warehouseId: warehouse.id, serviceLocationId: serviceLocation.id, now, random: new Random(DEMO_RANDOM_SEED) };
}

async function seedEverything(context: DemoContext): Promise<void> {
  const { tx, storeId } = context;
  // First, disabled: no event of the demo is ever queued for it.
  const subscription = await createDemoSubscription(context);
  await updateBillingSettings(tx, storeId, { returnProcessingFee: '1.50' });

  const products = await seedCatalog(context);
  const customers = planCustomers(context.random);
  const { orders: planned, demand } = planOrders(context, products, customers);
  await seedStock(context, products, demand);
  await seedSupply(context, products);
  await seedCustomers(context, customers);
  const orders = await seedOrders(context, planned);
  await seedReturns(context, planned, orders);

  const newest = planned.slice(-24).map((order) => orders.get(order.number)!.id);
  const returns = await tx.return.findMany({ where: { storeId }, orderBy: { number: 'desc' }, take: 12, select: { id: true } });
  const fulfillments = await tx.fulfillment.findMany({
    where: { storeId, externalId: { in: planned.slice(-40, -30).map((order) => `F-${order.number}`) } },
    select: { id: true, externalId: true },
  });
  await seedWebhookHistory(context, subscription, {
    orderIds: newest,
    fulfillmentIds: fulfillments.sort((a, b) => a.externalId.localeCompare(b.externalId)).map((f) => f.id),
    returnIds: returns.map((r) => r.id),
  });
}
