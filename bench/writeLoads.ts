// The two hottest writes as the benches that weigh a cost on them send them (bench/audit.ts,
// bench/idempotency.ts): the customer upsert (PUT /v2.2/stores/{id}/customers: 50 e-mails with
// custom fields, each upsert a change of the last name) and the order creation (POST
// /v2.2/stores/{id}/orders: three lines that commit stock, a customer), against a service on
// a free port of this process, with a store, an all-scope API client and stocked products.
import type { AddressInfo } from 'node:net';
import { SCOPES } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { newId } from '../src/domain/ids.ts';
import { createApiClient, createStore } from '../src/domain/stores.ts';
import { createLogger } from '../src/observability/logger.ts';
import { createApp, type App } from '../src/process/server.ts';
import type { LoadRequest } from './load.ts';

const EMAILS = 50;
const PRODUCTS = 30;
/** Orders differ in the products they name, so concurrent orders do not all wait on the same three levels. */
const ORDER_SHAPES = 10;

export interface ServedWrites {
  app: App;
  base: string;
  storeId: string;
  headers: Record<string, string>;
}

/** A store of its own for the load: its all-scope client's headers and its stocked products. */
export interface StockedStore {
  storeId: string;
  headers: Record<string, string>;
}

/** A store in a migrated database with an all-scope API client and PRODUCTS stocked products at its default location. */
export async function stockedStore(db: Database, label: string): Promise<StockedStore> {
  const { id: storeId } = await createStore(db.prisma, { name: label });
  const { secret } = await createApiClient(db.prisma, { storeId, name: 'bench', scopes: SCOPES });
  const { defaultLocationId } = await db.prisma.store.findUniqueOrThrow({ where: { id: storeId } });
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({ id: newId('product'), storeId, title: `Stocked ${i}`, sku: `BENCH-${i}` }));
  await db.prisma.product.createMany({ data: products });
  await db.prisma.inventoryLevel.createMany({ data: products.map((p) => ({ id: newId('inventoryLevel'), storeId, productId: p.id, locationId: defaultLocationId!, quantity: 1_000_000 })) });
  return { storeId, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } };
}

/** A migrated database's stocked store (stockedStore); the server on a free port. */
export async function serveWrites(db: Database, label: string): Promise<ServedWrites> {
  const { storeId, headers } = await stockedStore(db, label);
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_DISPATCHER: 'false' }), rateLimits: { rest: 1_000_000, compat: 1_000_000 } };
  const app = createApp({ db, config, logger: createLogger('silent') });
  app.server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, base, storeId, headers };
}

export function customerUpsertLoad(s: ServedWrites, headers: Record<string, string> = {}): LoadRequest {
  return {
    url: `${s.base}/v2.2/stores/${s.storeId}/customers`,
    method: 'PUT',
    headers: { ...s.headers, ...headers },
    bodies: Array.from({ length: EMAILS }, (_, i) =>
      // Every upsert changes the customer (a new last name), so every one is a write.
      JSON.stringify({ email: `customer-${i}@example.com`, firstName: 'Ada', lastName: 'Bench {{unique}}', customFields: { tier: i % 2 ? 'gold' : 'silver', visits: i } }),
    ),
  };
}

export function orderCreateLoad(s: Pick<ServedWrites, 'base' | 'storeId' | 'headers'>, headers: Record<string, string> = {}): LoadRequest {
  return {
    url: `${s.base}/v2.2/stores/${s.storeId}/orders`,
    method: 'POST',
    headers: { ...s.headers, ...headers },
    bodies: Array.from({ length: ORDER_SHAPES }, (_, shape) =>
      JSON.stringify({
        orderId: 'bench-{{unique}}',
        createdAt: '2026-03-01T10:00:00Z',
        customer: { email: `shopper-${shape}@example.com`, firstName: 'Bench', lastName: 'Shopper' },
        lineItems: [0, 1, 2].map((n) => ({ id: `line-${n}`, productId: `p-${n}`, sku: `BENCH-${(shape * 3 + n) % PRODUCTS}`, title: `Product ${n}`, quantity: 2, price: 12.5 })),
        totalPrice: 75,
        currency: 'USD',
      }),
    ),
  };
}
