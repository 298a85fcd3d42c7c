// Inventory fixtures for the v3 schema tests: a catalogue, locations and stock made
// through the domain functions, and a GraphQL caller that fails loudly on errors.
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createAttribute, createProduct, createProductFamily } from '../../src/domain/catalog.ts';
import { adjustInventory, createLocation } from '../../src/domain/inventory.ts';
import { graphql, type TestServer } from '../support/server.ts';

export type GraphQLResult = Awaited<ReturnType<typeof graphql>>;

/** Runs an operation that must succeed and returns its data. */
export async function query<T = Record<string, unknown>>(
  server: Pick<TestServer, 'url'>,
  secret: string,
  document: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const result = await graphql(server, secret, document, variables);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  expect(result.status).toBe(200);
  return result.data as T;
}

/** The extensions.code of every error of a result. */
export function errorCodes(result: GraphQLResult): (string | undefined)[] {
  return (result.errors ?? []).map((e) => e.extensions?.code);
}

/** The userErrors list every inventory-app mutation payload carries. */
export interface UserErrors {
  userErrors: { code: string; field: string[] | null; message: string }[];
}

export interface Catalog {
  familyId: string;
  /** Variants in creation order: Red/S, Red/M, Blue/S, Blue/M. */
  productIds: string[];
  warehouseId: string;
  storeRoomId: string;
  weightAttributeId: string;
}

/**
 * A family "Tee" with options Colour (position 0) and Size (position 1), four
 * variants, two locations and stock of every variant at the warehouse.
 */
export async function seedCatalog(db: Database, storeId: string): Promise<Catalog> {
  const weight = await createAttribute(db.prisma, storeId, { name: 'shipping_weight', displayName: 'Shipping weight', type: 'WEIGHT' });
  await createAttribute(db.prisma, storeId, { name: 'care', displayName: 'Care', type: 'SHORT_TEXT' });
  const family = await createProductFamily(db.prisma, storeId, {
    title: 'Tee',
    options: [
      { name: 'Colour', values: ['Red', 'Blue'] },
      { name: 'Size', values: ['S', 'M'] },
    ],
  });
  const productIds: string[] = [];
  for (const colour of ['Red', 'Blue']) {
    for (const size of ['S', 'M']) {
      const product = await createProduct(db.prisma, storeId, {
        title: `Tee ${colour} ${size}`,
        sku: `TEE-${colour.toUpperCase()}-${size}`,
        productFamilyId: family.id,
        // Given in reverse of the family's positions on purpose.
        options: [
          { name: 'Size', value: size },
          { name: 'Colour', value: colour },
        ],
        price: '25.00',
        cost: '9.5',
        weight: { value: 180, unit: 'G' },
        dimensions: { length: 30, width: 25, height: 2, unit: 'CM' },
        attributes: [{ name: 'shipping_weight', value: { value: 200, unit: 'G' } }],
      });
      productIds.push(product.id);
    }
  }
  const warehouse = await createLocation(db.prisma, storeId, { name: 'Warehouse', countryCode: 'US' });
  const storeRoom = await createLocation(db.prisma, storeId, { name: 'Store room', countryCode: 'US' });
  for (const [index, productId] of productIds.entries()) {
    await adjustInventory(db.prisma, storeId, { productId, locationId: warehouse.id, quantityDelta: 10 * (index + 1), reason: 'initial_count' });
  }
  return { familyId: family.id, productIds, warehouseId: warehouse.id, storeRoomId: storeRoom.id, weightAttributeId: weight.id };
}
