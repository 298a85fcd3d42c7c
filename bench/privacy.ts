// A shopper's data export and erasure (issue 36) on PostgreSQL: one shopper with 1,000 orders
// (each with two lines and a shipping address; a fifth fulfilled with a tracking scan, a tenth
// returned with a comment and a note) and 50 custom and 50 storefront events, among 100 other
// shoppers with 1,000 orders. The service runs from source as a child process, as in production:
// the export (GET /v2.2/stores/{id}/customers/data-export, streamed) is timed to its last byte
// with the service's resident memory sampled while it is read (before, peak); the erasure
// (POST .../customers/erase, one transaction) is timed, then a second one, which finds nothing
// left. BENCH_PRIVACY_ORDERS changes the shopper's order count.
import fs from 'node:fs';
import http from 'node:http';
import { SCOPES } from '../src/auth/scopes.ts';
import { openDatabase } from '../src/db/client.ts';
import type { Database } from '../src/db/database.ts';
import { recordCustomEvent } from '../src/domain/customEvents.ts';
import { upsertCustomer } from '../src/domain/customers.ts';
import { createFulfillment, updateShipmentStatus } from '../src/domain/fulfillments.ts';
import { createOrder } from '../src/domain/orders.ts';
import { createReturn } from '../src/domain/returns/creation.ts';
import { addReturnNote } from '../src/domain/returns/operations.ts';
import { recordStorefrontEvent } from '../src/domain/storefrontEvents.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { exited, residentMb, startService, type Service } from '../test/support/service.ts';
import { waitFor } from '../test/webhooks/support.ts';
import { scratchDatabase } from './scratchDatabase.ts';

const ORDERS = Number(process.env.BENCH_PRIVACY_ORDERS ?? 1_000);
const OTHER_SHOPPERS = 100;
const OTHER_ORDERS_EACH = 10;
const EVENTS = 50;
const SAMPLE_MS = 25;
const EMAIL = 'bench.shopper@example.com';

function order(orderId: string, email: string, n: number) {
  return {
    orderId,
    createdAt: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString(),
    customer: { email, phoneNumber: '+14155550142', firstName: 'Bench', lastName: 'Shopper' },
    shipping: { method: 'Ground', cost: 5, address: { address1: `${n} Long Street`, city: 'Springfield', postalCode: '62701', country: 'US' } },
    billingAddress: { address1: `${n} Long Street`, city: 'Springfield', postalCode: '62701', country: 'US' },
    totalPrice: 65,
    lineItems: [
      { id: 'L1', productId: 'ext-tee', title: 'Trail Tee', sku: 'TEE-1', quantity: 2, price: 25 },
      { id: 'L2', productId: 'ext-cap', title: 'Cap', sku: 'CAP-1', quantity: 1, price: 10 },
    ],
  };
}

/** The shopper and the others, through the domain's own operations. */
async function seed(db: Database, storeId: string): Promise<void> {
  const { prisma } = db;
  await upsertCustomer(prisma, storeId, { email: EMAIL, firstName: 'Bench', lastName: 'Shopper', phoneNumber: '+14155550142', customFields: { tier: 'gold', visits: 40 } });
  for (let n = 0; n < ORDERS; n++) {
    const placed = await createOrder(prisma, storeId, order(`B-${n}`, EMAIL, n));
    if (n % 5 === 0) {
      await createFulfillment(prisma, storeId, placed.id, { fulfillmentId: `F-${n}`, lineItems: [{ id: 'L1', quantity: 2 }], tracking: { carrier: 'UPS', code: `1Z${n}` } });
      await updateShipmentStatus(prisma, storeId, placed.id, `F-${n}`, { status: 'delivered', message: 'Left with Bench at the door', location: { city: 'Springfield', postalCode: '62701' } });
    }
    if (n % 10 === 0) {
      const created = await createReturn(prisma, storeId, { orderId: placed.id, items: [{ lineItemId: 'L2', quantity: 1, reason: 'Too small', customerComment: 'Call me, Bench' }] });
      await addReturnNote(prisma, storeId, { id: created.id }, 'Bench Shopper phoned');
    }
  }
  for (let n = 0; n < EVENTS; n++) {
    await recordCustomEvent(prisma, storeId, { eventName: 'Viewed', customer: { email: EMAIL }, data: { page: `lookbook-${n}` } });
    await recordStorefrontEvent(prisma, storeId, { eventId: `sf-${n}`, eventName: 'page_viewed', timestamp: '2026-11-20T10:00:00Z', source: 'AIMERCE', customerEmail: EMAIL, anonymousId: 'anon-bench' });
  }
  for (let s = 0; s < OTHER_SHOPPERS; s++) {
    for (let n = 0; n < OTHER_ORDERS_EACH; n++) await createOrder(prisma, storeId, order(`O-${s}-${n}`, `other${s}@example.net`, n));
  }
}

/** A GET read as it arrives, its bytes counted and dropped, with the service's RSS sampled meanwhile. */
function download(service: Service, path: string, secret: string): Promise<{ ms: number; bytes: number; before: number; peak: number }> {
  const pid = service.child.pid!;
  const before = residentMb(pid)!;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMb(pid) ?? peak);
  }, SAMPLE_MS);
  const started = performance.now();
  return new Promise<{ ms: number; bytes: number; before: number; peak: number }>((resolve, reject) => {
    http
      .get(`${service.url}${path}`, { headers: { authorization: `Bearer ${secret}` }, agent: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`));
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ ms: performance.now() - started, bytes, before, peak: Math.max(peak, residentMb(pid) ?? peak) }));
        res.on('error', reject);
      })
      .on('error', reject);
  }).finally(() => clearInterval(sampler));
}

async function erase(service: Service, storeId: string, secret: string): Promise<{ ms: number; total: number; counts: Record<string, number> }> {
  const started = performance.now();
  const res = await fetch(`${service.url}/v2.2/stores/${storeId}/customers/erase`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL }),
  });
  const body = (await res.json()) as { total: number; counts: Record<string, number> };
  if (res.status !== 200) throw new Error(`erase answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, ...body };
}

export async function run(): Promise<void> {
  if (!fs.existsSync('/proc/self/status')) {
    process.stdout.write('no /proc here; not measured\n');
    return;
  }
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  try {
    scratch = await scratchDatabase('privacy');
  } catch (error) {
    process.stdout.write(`PostgreSQL unreachable (${(error as Error).message}); not measured\n`);
    return;
  }
  const limits = { RATE_LIMIT_REST_PER_MINUTE: '1000000', LOG_LEVEL: 'warn', WEBHOOK_DISPATCHER: 'false' };
  const ready = (service: Service) =>
    waitFor(async () => (await fetch(`${service.url}/readyz`).then((r) => r.status).catch(() => 0)) === 200, '/readyz', 60_000, 50);
  try {
    // The first start migrates the scratch database.
    const migrating = await startService(scratch.url, limits);
    await ready(migrating);
    migrating.child.kill('SIGTERM');
    await exited(migrating.child);

    const db = await openDatabase(scratch.url, { poolSize: 2 });
    let storeId: string;
    let secret: string;
    const seeding = performance.now();
    try {
      storeId = (await createStore(db.prisma, { name: 'Privacy bench' })).id;
      secret = (await createApiClient(db.prisma, { storeId, name: 'bench', scopes: SCOPES })).secret;
      await seed(db, storeId);
      await db.sql.query('ANALYZE', []);
    } finally {
      await db.close();
    }
    process.stdout.write(
      `one shopper with ${ORDERS} orders (${ORDERS / 5} fulfilled, ${ORDERS / 10} returned), ${EVENTS} custom and ${EVENTS} storefront events, ` +
        `among ${OTHER_SHOPPERS} others with ${OTHER_SHOPPERS * OTHER_ORDERS_EACH} orders, on PostgreSQL (seeded through the domain in ${((performance.now() - seeding) / 1000).toFixed(0)} s)\n`,
    );

    const service = await startService(scratch.url, limits);
    try {
      await ready(service);
      const path = `/v2.2/stores/${storeId}/customers/data-export?email=${encodeURIComponent(EMAIL)}`;
      // Warm: the export's code paths and statements have run once (another shopper's, small).
      await download(service, `/v2.2/stores/${storeId}/customers/data-export?email=other0%40example.net`, secret);
      const exported = await download(service, path, secret);
      process.stdout.write(
        `  export (GET .../customers/data-export, streamed): ${(exported.ms / 1000).toFixed(2)} s, ${(exported.bytes / 1e6).toFixed(1)} MB; ` +
          `service RSS ${exported.before.toFixed(0)} MB -> peak ${exported.peak.toFixed(0)} MB (+${(exported.peak - exported.before).toFixed(0)} MB)\n`,
      );
      const first = await erase(service, storeId, secret);
      const changed = Object.entries(first.counts).filter(([, n]) => n > 0).map(([kind, n]) => `${kind} ${n}`).join(', ');
      process.stdout.write(`  erasure (POST .../customers/erase, one transaction): ${(first.ms / 1000).toFixed(2)} s, ${first.total} rows changed (${changed})\n`);
      const second = await erase(service, storeId, secret);
      process.stdout.write(`  erasure again: ${(second.ms / 1000).toFixed(2)} s, ${second.total} rows changed\n`);
    } catch (error) {
      process.stdout.write(`  the service said:\n${service.output().split('\n').slice(-20).join('\n')}\n`);
      throw error;
    } finally {
      service.child.kill('SIGTERM');
      await exited(service.child);
    }
  } finally {
    await scratch.drop();
  }
}
