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
  fields: (t) => ({
    locationId: t.exposeID('locationId', { nullable: false }),
    locationName: t.exposeString('locationName', { nullable: false }),
    quantity: t.exposeInt('quantity', { nullable: false }),
  }),
});

export const InventoryItemKind = builder.enumType('InventoryItemKind', {
  values: { PRODUCT: { description: "One of the store's products" } } as const,
});

const InventoryItem = builder.objectRef<InventoryItemShape>('InventoryItem').implement({
  description: "A product of the store with units on hand",
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'The product id (prd_)' }),
    sku: t.exposeString('sku', { nullable: true }),
    name: t.exposeString('name', { nullable: false, description: 'The product title' }),
    kind: t.field({ type: InventoryItemKind, nullable: false, resolve: () => 'PRODUCT' as const }),
    quantity: t.exposeInt('quantity', { nullable: false, description: 'On hand: at the location filtered on, else over every location' }),
    locations: t.field({ type: [InventoryItemLocation], nullable: false, resolve: (i) => i.locations }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false }),
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
      description: 'Products of the store with units on hand, most recently updated first (ties by id)',
      authScopes: { scope: 'inventory_read' },
      args: {
        locationId: t.arg.id({ description: 'Only items on hand at this location; quantity is then the quantity there' }),
        kind: t.arg({ type: InventoryItemKind }),
      },
      resolve: (_root, args, ctx) =>
        keysetConnection({
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
    description: 'One of the store products with units on hand; null when absent or out of stock',
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => (await loadItems(ctx.prisma, { id: String(args.id), storeId: storeIdOf(ctx) }, undefined))[0] ?? null,
  }),
}));
