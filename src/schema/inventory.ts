// Locations and stock levels in v3 (spec 2.8, decisions.md "Read interface v3"):
// Location, LocationInventoryLevel with its owner-only `product` and the
// fulfillment-oriented `inventoryProduct`; root lookups and lists; location and
// adjustment mutations. Rules and visibility live in domain/inventory.ts.
import type { Prisma } from '../generated/prisma/client.ts';
import * as inventory from '../domain/inventory.ts';
import { builder } from './builder.ts';
import { InventoryProduct, Product } from './catalog.ts';
import { storeIdOf } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery, fieldQuery, keysetSortOf, registerNode, timeRange, type SortKeyDefinition } from './node.ts';
import { payloadType, withUserErrors } from './userErrors.ts';

// ---------------------------------------------------------------- types

export const LocationInventoryLevel = builder.prismaObject('InventoryLevel', {
  name: 'LocationInventoryLevel',
  // Select mode (builder.ts): the stock figures load with every level.
  select: { id: true, storeId: true, quantity: true, committed: true, reserved: true },
  fields: (t) => ({
    quantity: t.int({ nullable: false, description: 'Total on hand at the location', resolve: (level) => level.quantity }),
    available: t.int({ nullable: false, description: 'Available to sell: quantity - committed - reserved', resolve: inventory.availableOf }),
    committed: t.int({ nullable: false, description: 'Committed to existing orders', resolve: (level) => level.committed }),
    reserved: t.int({ nullable: false, description: 'Reserved across all reservation buckets (damaged units included)', resolve: (level) => level.reserved }),
    buildable: t.exposeInt('buildable', { nullable: false, description: 'Buildable from components' }),
    location: t.relation('location', { nullable: true, authScopes: { scope: 'locations_read' } }),
    product: t.relation('product', {
      nullable: true,
      description: 'Readable only by the account owning the product',
      authScopes: (level, _args, ctx) => level.storeId === storeIdOf(ctx),
    }),
    inventoryProduct: t.relation('product', {
      type: InventoryProduct,
      nullable: true,
      description: 'Fulfillment-oriented view of the product, readable by anyone who can see the level',
      authScopes: { scope: 'inventory_read' },
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(LocationInventoryLevel, {
  scope: 'inventory_read',
  load: (id, ctx, info) => ctx.reads.inventoryLevel.findFirst({ ...fieldQuery(ctx, info, 'LocationInventoryLevel'), where: { id, ...inventory.visibleLevelWhere(storeIdOf(ctx)) } }),
});

export const LocationInventoryLevelConnection = builder.connectionObject({ type: LocationInventoryLevel, name: 'LocationInventoryLevelConnection' });

// A product's stock, defined here with the level type it lists (catalog.ts stays below inventory).
builder.prismaObjectFields(Product, (t) => ({
    inventoryLevel: t.field({
      type: LocationInventoryLevel,
      nullable: true,
      description: 'The level at this location, if the product is stocked there',
      authScopes: { scope: 'inventory_read' },
      args: { locationId: t.arg.id({ required: true }) },
      select: (args, _ctx, nestedSelection) => ({ inventoryLevels: nestedSelection({ where: { locationId: String(args.locationId) }, take: 1 }) }),
      resolve: (p) => p.inventoryLevels[0] ?? null,
    }),
    inventoryLevels: t.relatedConnection(
      'inventoryLevels',
      { nullable: false, cursor: 'id', authScopes: { scope: 'inventory_read' }, query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
      LocationInventoryLevelConnection,
    ),
}));

export const Location = builder.prismaObject('Location', {
  // Select mode (builder.ts): the name loads with every location.
  select: { id: true, name: true },
  fields: (t) => ({
    name: t.string({ nullable: false, resolve: (location) => location.name }),
    company: t.exposeString('company', { nullable: true }),
    street1: t.exposeString('street1', { nullable: true }),
    street2: t.exposeString('street2', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    stateCode: t.exposeString('stateCode', { nullable: true }),
    postalCode: t.exposeString('postalCode', { nullable: true }),
    countryCode: t.exposeString('countryCode', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    inventoryLevels: t.relatedConnection(
      'inventoryLevels',
      {
        nullable: false,
        cursor: 'id',
        description: "The levels at this location the caller may see (a merchant: its own products'; the location's owner: all)",
        authScopes: { scope: 'inventory_read' },
        query: (_args, ctx) => ({ where: inventory.visibleLevelWhere(storeIdOf(ctx)), orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
      },
      LocationInventoryLevelConnection,
    ),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(Location, {
  scope: 'locations_read',
  load: (id, ctx, info) => ctx.reads.location.findFirst({ ...fieldQuery(ctx, info, 'Location'), where: { id, ...inventory.visibleLocationWhere(storeIdOf(ctx)) } }),
});

export const LocationConnection = builder.connectionObject({ type: Location, name: 'LocationConnection' });

// ---------------------------------------------------------------- root queries

const LEVEL_SORT_KEYS = {
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  CREATED_AT: { field: 'createdAt', kind: 'date' },
} as const satisfies Record<string, SortKeyDefinition>;

export const InventoryLevelSortKey = builder.enumType('InventoryLevelSortKey', { values: Object.keys(LEVEL_SORT_KEYS) as (keyof typeof LEVEL_SORT_KEYS)[] });

const LOCATION_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  NAME: { field: 'name', kind: 'string' },
} as const satisfies Record<string, SortKeyDefinition>;

export const LocationSortKey = builder.enumType('LocationSortKey', { values: Object.keys(LOCATION_SORT_KEYS) as (keyof typeof LOCATION_SORT_KEYS)[] });

builder.queryFields((t) => ({
  inventoryLevel: t.field({
    type: LocationInventoryLevel,
    nullable: true,
    description: 'A level the caller can see; null when absent',
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) =>
      ctx.reads.inventoryLevel.findFirst({ ...fieldQuery(ctx, info, 'LocationInventoryLevel'), where: { id: String(args.id), ...inventory.visibleLevelWhere(storeIdOf(ctx)) } }),
  }),
  inventoryLevels: t.connection(
    {
      nullable: false,
      type: LocationInventoryLevel,
      description:
        "Levels of the store's products (at its own and its fulfillment services' locations) and, for a fulfillment service, every level at its locations. Most recently updated first by default",
      authScopes: { scope: 'inventory_read' },
      args: {
        orderBy: t.arg({ type: InventoryLevelSortKey, defaultValue: 'UPDATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false }),
        locationId: t.arg.id(),
        productId: t.arg.id(),
        sku: t.arg.string(),
        updatedAtMin: t.arg({ type: 'DateTime', description: 'Inclusive' }),
        updatedAtMax: t.arg({ type: 'DateTime', description: 'Exclusive' }),
      },
      resolve: (_root, args, ctx, info) => {
        const updatedAt = timeRange(args.updatedAtMin, args.updatedAtMax);
        const filter: Prisma.InventoryLevelWhereInput = {
          ...inventory.visibleLevelWhere(storeIdOf(ctx)),
          ...(args.locationId ? { locationId: String(args.locationId) } : {}),
          ...(args.productId ? { productId: String(args.productId) } : {}),
          ...(args.sku ? { product: { sku: args.sku } } : {}),
          ...(updatedAt ? { updatedAt } : {}),
        };
        return keysetConnection({
          args,
          scope: 'inventoryLevels',
          sort: keysetSortOf(LEVEL_SORT_KEYS[args.orderBy ?? 'UPDATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.inventoryLevel.findMany({
              ...connectionNodeQuery(ctx, info, 'LocationInventoryLevel', cursorColumns),
              where: { AND: [filter, where] },
              orderBy,
              take,
            } as Prisma.InventoryLevelFindManyArgs),
        });
      },
    },
    LocationInventoryLevelConnection,
  ),
  location: t.field({
    type: Location,
    nullable: true,
    description: "One of the store's locations or of a linked fulfillment service; null when absent",
    authScopes: { scope: 'locations_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) =>
      ctx.reads.location.findFirst({ ...fieldQuery(ctx, info, 'Location'), where: { id: String(args.id), ...inventory.visibleLocationWhere(storeIdOf(ctx)) } }),
  }),
  locations: t.connection(
    {
      nullable: false,
      type: Location,
      description: "The store's locations and those of its linked fulfillment services; newest first by default",
      authScopes: { scope: 'locations_read' },
      args: {
        orderBy: t.arg({ type: LocationSortKey, defaultValue: 'CREATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false }),
      },
      resolve: (_root, args, ctx, info) =>
        keysetConnection({
          args,
          scope: 'locations',
          sort: keysetSortOf(LOCATION_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.location.findMany({
              ...connectionNodeQuery(ctx, info, 'Location', cursorColumns),
              where: { AND: [inventory.visibleLocationWhere(storeIdOf(ctx)), where] },
              orderBy,
              take,
            } as Prisma.LocationFindManyArgs),
        }),
    },
    LocationConnection,
  ),
}));

// ---------------------------------------------------------------- mutations

const LocationInput = builder.inputType('LocationInput', {
  description: 'Fields of a location; on update, fields left out stay as they are and null clears an optional one',
  fields: (t) => ({
    name: t.string({ description: 'Required when creating' }),
    company: t.string(),
    street1: t.string(),
    street2: t.string(),
    city: t.string(),
    stateCode: t.string(),
    postalCode: t.string(),
    countryCode: t.string({ description: 'ISO 3166-1 alpha-2' }),
    phone: t.string(),
  }),
});

const InventoryAdjustInput = builder.inputType('InventoryAdjustInput', {
  description: 'A change of one level, named by inventoryLevelId or by productId and locationId (created when missing)',
  fields: (t) => ({
    inventoryLevelId: t.id(),
    productId: t.id(),
    locationId: t.id(),
    quantityDelta: t.int({ description: 'Change of the quantity on hand' }),
    committedDelta: t.int(),
    reservedDelta: t.int(),
    buildableDelta: t.int(),
    reason: t.string({ required: true, description: 'Why, e.g. "cycle_count" or "damaged"; kept in the ledger' }),
    referenceId: t.string({ description: 'What caused it, e.g. a document number' }),
  }),
});

const LocationPayload = payloadType('LocationPayload', 'location', Location);
const InventoryAdjustPayload = payloadType('InventoryAdjustPayload', 'inventoryLevel', LocationInventoryLevel);

builder.mutationFields((t) => ({
  locationCreate: t.field({
    type: LocationPayload,
    authScopes: { scope: 'locations_write' },
    args: { input: t.arg({ type: LocationInput, required: true }) },
    resolve: (_root, { input }, ctx) => withUserErrors({ ctx, input: 'input' }, () => inventory.createLocation(ctx.prisma, storeIdOf(ctx), input)),
  }),
  locationUpdate: t.field({
    type: LocationPayload,
    authScopes: { scope: 'locations_write' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: LocationInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => inventory.updateLocation(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  locationSetDefault: t.field({
    type: LocationPayload,
    description: "Makes the location (the store's own or a linked fulfillment service's) the one orders without a locationId commit stock at",
    authScopes: { scope: 'locations_write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) =>
      withUserErrors({ ctx, args: ['id'] }, () => inventory.setDefaultLocation(ctx.prisma, storeIdOf(ctx), String(id))),
  }),
  inventoryAdjust: t.field({
    type: InventoryAdjustPayload,
    description:
      'Changes one level by deltas; quantity never goes below 0 and neither committed nor reserved above quantity (a level oversold by orders may still receive stock)',
    authScopes: { scope: 'inventory_write' },
    args: { input: t.arg({ type: InventoryAdjustInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, () =>
        inventory.adjustInventory(ctx.prisma, storeIdOf(ctx), {
          ...input,
          inventoryLevelId: input.inventoryLevelId == null ? input.inventoryLevelId : String(input.inventoryLevelId),
          productId: input.productId == null ? input.productId : String(input.productId),
          locationId: input.locationId == null ? input.locationId : String(input.locationId),
        }),
      ),
  }),
}));
