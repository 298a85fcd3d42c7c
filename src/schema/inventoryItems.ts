// Inventory items: the store's products that are in stock, with their on-hand quantity
// per location (the REST "Inventory Items" group reads this). Only units on hand count;
// a product whose every level is empty is not an inventory item.
import type { Prisma } from '../generated/prisma/client.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { keysetConnection } from './keyset.ts';

interface InventoryItemShape {
  id: string;
  sku: string | null;
  name: string;
  quantity: number;
  locations: { locationId: string; locationName: string; quantity: number }[];
  createdAt: Date;
  updatedAt: Date;
}

const InventoryItemLocation = builder.objectRef<InventoryItemShape['locations'][number]>('InventoryItemLocation').implement({
  description: 'Units of an inventory item on hand at one location',
  fields: (t) => ({
    locationId: t.exposeID('locationId', { nullable: false, description: 'Location id (loc_)' }),
    locationName: t.exposeString('locationName', { nullable: false, description: 'Name of the location' }),
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Units on hand there (at least 1), committed and reserved ones included' }),
  }),
});

export const InventoryItemKind = builder.enumType('InventoryItemKind', {
  description: 'What an inventory item is; every item is a PRODUCT today',
  values: { PRODUCT: { description: "One of the store's products" } } as const,
});

const InventoryItem = builder.objectRef<InventoryItemShape>('InventoryItem').implement({
  description: "A product of the store with units on hand",
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'The product id (prd_)' }),
    sku: t.exposeString('sku', { nullable: true, description: "The product's stock keeping unit; null when none" }),
    name: t.exposeString('name', { nullable: false, description: 'The product title' }),
    kind: t.field({ type: InventoryItemKind, nullable: false, description: 'Always PRODUCT', resolve: () => 'PRODUCT' as const }),
    quantity: t.exposeInt('quantity', {
      nullable: false,
      description: 'Units on hand (committed and reserved included): at the location filtered on, else summed over every location',
    }),
    locations: t.field({
      type: [InventoryItemLocation],
      nullable: false,
      description: 'The locations with units on hand, by location id; only the one filtered on when `locationId` is given',
      resolve: (i) => i.locations,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the product was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When the product was last changed (ISO 8601, UTC); stock changes do not count' }),
  }),
});

const InventoryItemConnection = builder.connectionObject({ type: InventoryItem, name: 'InventoryItemConnection' });

async function loadItems(prisma: Prisma.TransactionClient, where: Prisma.ProductWhereInput, locationId: string | undefined, page?: { orderBy: unknown; take: number }) {
  const levelWhere = { quantity: { gt: 0 }, ...(locationId ? { locationId } : {}) };
  const products = await prisma.product.findMany({
    where: { AND: [where, { inventoryLevels: { some: levelWhere } }] },
    include: { inventoryLevels: { where: levelWhere, include: { location: { select: { name: true } } }, orderBy: { locationId: 'asc' } } },
    ...(page ? { orderBy: page.orderBy as Prisma.ProductOrderByWithRelationInput[], take: page.take } : {}),
  });
  return products.map(
    (p): InventoryItemShape => ({
      id: p.id,
      sku: p.sku,
      name: p.title,
      quantity: p.inventoryLevels.reduce((sum, l) => sum + l.quantity, 0),
      locations: p.inventoryLevels.map((l) => ({ locationId: l.locationId, locationName: l.location.name, quantity: l.quantity })),
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    }),
  );
}

builder.queryFields((t) => ({
  inventoryItems: t.connection(
    {
      type: InventoryItem,
      nullable: false,
      description: 'Products of the store with units on hand, most recently updated product first (ties by id). Requires inventory_read',
      authScopes: { scope: 'inventory_read' },
      args: {
        locationId: t.arg.id({ description: 'Only items on hand at this location (loc_); quantity is then the quantity there' }),
        kind: t.arg({ type: InventoryItemKind, description: 'Only items of this kind; as every item is a PRODUCT, it filters nothing' }),
      },
      resolve: (_root, args, ctx) =>
        keysetConnection({
          cursors: ctx.services.cursors,
          args,
          scope: 'inventoryItems',
          sort: { field: 'updatedAt', kind: 'date', direction: 'desc' },
          fetch: ({ where, orderBy, take }) =>
            loadItems(ctx.prisma, { AND: [{ storeId: storeIdOf(ctx) }, where as Prisma.ProductWhereInput] }, args.locationId?.toString(), { orderBy, take }),
        }),
    },
    InventoryItemConnection,
  ),
  inventoryItem: t.field({
    type: InventoryItem,
    nullable: true,
    description: "One of the store's products with units on hand, by product id; null when absent or out of stock. Requires inventory_read",
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true, description: 'Product id (prd_)' }) },
    resolve: async (_root, args, ctx) => (await loadItems(ctx.prisma, { id: String(args.id), storeId: storeIdOf(ctx) }, undefined))[0] ?? null,
  }),
}));
