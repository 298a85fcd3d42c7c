// Stores, their links to fulfillment services, and API clients.
import { API_CLIENT_CHANNEL, forgetApiClient } from '../auth/authenticate.ts';
import { generateSecret, hashSecret } from '../auth/secrets.ts';
import { isScope, SCOPES, type Scope } from '../auth/scopes.ts';
import type { StoreKind } from '../generated/prisma/client.ts';
import { Conflict, Invalid, NotFound } from './errors.ts';
import { newId } from './ids.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

/** Name of the location every store is made with; orders that name no location commit stock there. */
export const DEFAULT_LOCATION_NAME = 'Default location';

export async function createStore(db: Db | Tx, input: { name: string; kind?: StoreKind; currency?: string }): Promise<{ id: string }> {
  const name = input.name.trim();
  if (!name) throw new Invalid('name must not be empty', { path: 'name' });
  const kind = input.kind ?? 'MERCHANT';
  if (kind !== 'MERCHANT' && kind !== 'FULFILLMENT_SERVICE') {
    throw new Invalid('kind must be MERCHANT or FULFILLMENT_SERVICE', { path: 'kind' });
  }
  const id = newId('store');
  const locationId = newId('location');
  await inTransaction(db, async (tx) => {
    await tx.store.create({
      data: { id, name, kind, currency: input.currency ?? 'USD', locations: { create: { id: locationId, name: DEFAULT_LOCATION_NAME } } },
    });
    await tx.store.update({ where: { id }, data: { defaultLocationId: locationId } });
  });
  return { id };
}

export async function linkFulfillmentService(db: Db | Tx, merchantId: string, fulfillmentServiceId: string): Promise<void> {
  const stores = await db.store.findMany({ where: { id: { in: [merchantId, fulfillmentServiceId] } } });
  const merchant = stores.find((s) => s.id === merchantId);
  const service = stores.find((s) => s.id === fulfillmentServiceId);
  if (!merchant) throw new NotFound(`store ${merchantId} not found`, { path: 'merchant' });
  if (!service) throw new NotFound(`store ${fulfillmentServiceId} not found`, { path: 'fulfillment-service' });
  if (merchant.kind !== 'MERCHANT') throw new Invalid(`${merchantId} is not a merchant`, { path: 'merchant' });
  if (service.kind !== 'FULFILLMENT_SERVICE') {
    throw new Invalid(`${fulfillmentServiceId} is not a fulfillment service`, { path: 'fulfillment-service' });
  }
  await inTransaction(db, (tx) =>
    tx.storeLink.upsert({
      where: { merchantId_fulfillmentServiceId: { merchantId, fulfillmentServiceId } },
      create: { merchantId, fulfillmentServiceId },
      update: {},
    }),
  );
}

export function parseScopes(list: readonly string[]): Scope[] {
  const unknown = list.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw new Invalid(`unknown scope ${unknown.join(', ')}; known scopes: ${SCOPES.join(' ')}`, { path: 'scopes' });
  }
  return [...new Set(list)] as Scope[];
}

/** Creates a client and returns its secret, which is never retrievable again. */
export async function createApiClient(
  db: Db | Tx,
  input: { storeId: string; name: string; scopes: readonly string[] },
): Promise<{ id: string; secret: string }> {
  const scopes = parseScopes(input.scopes);
  if (!input.name.trim()) throw new Invalid('name must not be empty', { path: 'name' });
  // A client without a scope could authenticate and do nothing: a mistake, never a wish.
  if (scopes.length === 0) throw new Invalid(`choose at least one scope; known scopes: ${SCOPES.join(' ')}`, { path: 'scopes' });
  const store = await db.store.findUnique({ where: { id: input.storeId }, select: { id: true } });
  if (!store) throw new NotFound(`store ${input.storeId} not found`, { path: 'store' });
  const secret = generateSecret();
  const client = await inTransaction(db, (tx) =>
    tx.apiClient.create({
      data: { id: newId('apiClient'), storeId: input.storeId, name: input.name.trim(), scopes, secretHash: hashSecret(secret) },
    }),
  );
  return { id: client.id, secret };
}

/** Revokes a client; with `storeId`, only one of that store's clients (another store's is not found). */
export async function revokeApiClient(db: Db | Tx, id: string, storeId?: string): Promise<void> {
  const client = await db.apiClient.findUnique({ where: { id } });
  if (!client || (storeId !== undefined && client.storeId !== storeId)) throw new NotFound(`API client ${id} not found`, { path: 'id' });
  if (client.revokedAt) throw new Conflict(`API client ${id} is already revoked`, { path: 'id' });
  await inTransaction(db, async (tx) => {
    await tx.apiClient.update({ where: { id }, data: { revokedAt: new Date() } });
    // Delivered at commit to every instance's authenticator (src/auth/authenticate.ts), which forgets the client.
    await tx.$executeRaw`SELECT pg_notify(${API_CLIENT_CHANNEL}, ${id})`;
  });
  // This process's authenticators forget it now; the notification may arrive a moment later.
  forgetApiClient(id);
}
