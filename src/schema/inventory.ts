// Locations and stock levels in v3 (docs/interface-rules.md, "Inventory and inbound shipments"):
// Location, LocationInventoryLevel with its owner-only `product` and the
// fulfillment-oriented `inventoryProduct`; root lookups and lists; location and
// adjustment mutations. Rules and visibility live in domain/inventory.ts.
import type { Prisma } from '../generated/prisma/client.ts';
import * as inventory from '../domain/inventory.ts';
import { searchHelp, searchWhere } from '../domain/search/kinds.ts';
import { builder } from './builder.ts';
import { InventoryProduct, Product } from './catalog.ts';
import { storeIdOf } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery, fieldQuery, keysetSortOf, registerNode, timeRange, type SortKeyDefinition } from './node.ts';
import { payloadType, withUserErrors } from './userErrors.ts';

// ---------------------------------------------------------------- types

/** A value only reads compute (db/reads/derived.ts), which Prisma's select type does not list. */
const AVAILABLE_SELECT = { available: true } as Prisma.InventoryLevelSelect;

export const LocationInventoryLevel = builder.prismaObject('InventoryLevel', {
  name: 'LocationInventoryLevel',
  description: 'The stock of one product at one location, in units',
  // Select mode (builder.ts): each stock figure loads for the field that reads it, `available`
  // computed by the statement (db/reads/derived.ts), so a level read for it alone carries one
  // number, not the three it is made of.
  select: { id: false },
  fields: (t) => ({
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Total units on hand at the location, committed, reserved and damaged ones included; never below 0' }),
    available: t.int({
      nullable: false,
      description: 'Available to sell: quantity - committed - reserved; negative when orders committed more than was on hand (oversold)',
      select: AVAILABLE_SELECT,
      resolve: (level) => (level as unknown as { available: number }).available,
    }),
    committed: t.exposeInt('committed', { nullable: false, description: 'Units committed to existing orders; orders may commit past quantity' }),
    reserved: t.exposeInt('reserved', { nullable: false, description: 'Units reserved across all reservation buckets (damaged units included); at most quantity' }),
    buildable: t.exposeInt('buildable', { nullable: false, description: 'Units that could be built from components; not part of quantity or available' }),
    location: t.relation('location', { nullable: true, description: 'Where the stock is. Requires locations_read', authScopes: { scope: 'locations_read' } }),
    // The owner check reads the level's store, which loads with this field only: a level's
    // other fields (a page of thousands of levels) do not carry it.
    product: t.field({
      type: Product,
      nullable: true,
      description: 'The product; readable only by the account owning it (others get FORBIDDEN and use inventoryProduct)',
      select: (_args, _ctx, nestedSelection) => ({ storeId: true, product: nestedSelection(true) }),
      authScopes: (level, _args, ctx) => level.storeId === storeIdOf(ctx),
      resolve: (level) => level.product,
    }),
    inventoryProduct: t.relation('product', {
      type: InventoryProduct,
      nullable: true,
      description: 'Fulfillment-oriented view of the product, readable by anyone who can see the level. Requires inventory_read',
      authScopes: { scope: 'inventory_read' },
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the level was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the stock figures last changed (ISO 8601, UTC)' }),
  }),
});

registerNode(LocationInventoryLevel, {
  scope: 'inventory_read',
  idDescription: 'Inventory level id, prefix li_ (node(id:) needs inventory_read)',
  load: (id, ctx, info) => ctx.reads.inventoryLevel.findFirst({ ...fieldQuery(ctx, info, 'LocationInventoryLevel'), where: { id, ...inventory.visibleLevelWhere(storeIdOf(ctx)) } }),
});

export const LocationInventoryLevelConnection = builder.connectionObject({ type: LocationInventoryLevel, name: 'LocationInventoryLevelConnection' });

// A product's stock, defined here with the level type it lists (catalog.ts stays below inventory).
builder.prismaObjectFields(Product, (t) => ({
    inventoryLevel: t.field({
      type: LocationInventoryLevel,
      nullable: true,
      description: 'The level at this location; null when the product has none there. Requires inventory_read',
      authScopes: { scope: 'inventory_read' },
      args: { locationId: t.arg.id({ required: true, description: 'Location id (loc_)' }) },
      select: (args, _ctx, nestedSelection) => ({ inventoryLevels: nestedSelection({ where: { locationId: String(args.locationId) }, take: 1 }) }),
      resolve: (p) => p.inventoryLevels[0] ?? null,
    }),
    inventoryLevels: t.relatedConnection(
      'inventoryLevels',
      {
        nullable: false,
        cursor: 'id',
        description: "The product's levels at every location that has one, oldest first. Requires inventory_read",
        authScopes: { scope: 'inventory_read' },
        query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
      },
      LocationInventoryLevelConnection,
    ),
}));

export const Location = builder.prismaObject('Location', {
  description: "A place that holds stock: a warehouse of the store or of a fulfillment service linked to it, with its address",
  // Select mode (builder.ts): the name loads with every location, the id only for fields that read it.
  select: { id: false, name: true },
  fields: (t) => ({
    name: t.string({ nullable: false, description: 'Name of the location, 1-255 characters', resolve: (location) => location.name }),
    company: t.exposeString('company', { nullable: true, description: 'Company at the address; null when none' }),
    street1: t.exposeString('street1', { nullable: true, description: 'Street line 1; null when not given' }),
    street2: t.exposeString('street2', { nullable: true, description: 'Street line 2; null when not given' }),
    city: t.exposeString('city', { nullable: true, description: 'City; null when not given' }),
    stateCode: t.exposeString('stateCode', { nullable: true, description: 'State or province abbreviation, e.g. "CA"; null when not given' }),
    postalCode: t.exposeString('postalCode', { nullable: true, description: 'Postal code; null when not given' }),
    countryCode: t.exposeString('countryCode', { nullable: true, description: 'Country, ISO 3166-1 alpha-2 in upper case; null when not given' }),
    phone: t.exposeString('phone', { nullable: true, description: 'Phone number as given; null when none' }),
    inventoryLevels: t.relatedConnection(
      'inventoryLevels',
      {
        nullable: false,
        cursor: 'id',
        description:
          "The levels at this location the caller may see (a merchant: its own products'; the location's owner: all), oldest first. Requires inventory_read",
        authScopes: { scope: 'inventory_read' },
        query: (_args, ctx) => ({ where: inventory.visibleLevelWhere(storeIdOf(ctx)), orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
      },
      LocationInventoryLevelConnection,
    ),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the location was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the location was last changed (ISO 8601, UTC)' }),
  }),
});

registerNode(Location, {
  scope: 'locations_read',
  idDescription: 'Location id, prefix loc_ (node(id:) needs locations_read); the locationId of order creation',
  load: (id, ctx, info) => ctx.reads.location.findFirst({ ...fieldQuery(ctx, info, 'Location'), where: { id, ...inventory.visibleLocationWhere(storeIdOf(ctx)) } }),
});

export const LocationConnection = builder.connectionObject({ type: Location, name: 'LocationConnection' });

// ---------------------------------------------------------------- root queries

const LEVEL_SORT_KEYS = {
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  CREATED_AT: { field: 'createdAt', kind: 'date' },
} as const satisfies Record<string, SortKeyDefinition>;

export const InventoryLevelSortKey = builder.enumType('InventoryLevelSortKey', {
  description: 'Order of inventory levels: newest first unless `reverse`; ties by id',
  values: {
    UPDATED_AT: { description: 'Time the stock figures last changed (the default)' },
    CREATED_AT: { description: 'Creation time of the level' },
  } as const satisfies Record<keyof typeof LEVEL_SORT_KEYS, { description: string }>,
});

const LOCATION_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  NAME: { field: 'name', kind: 'string' },
} as const satisfies Record<string, SortKeyDefinition>;

export const LocationSortKey = builder.enumType('LocationSortKey', {
  description: 'Order of locations: descending (newest, or Z first) unless `reverse`; ties by id',
  values: {
    CREATED_AT: { description: 'Creation time (the default)' },
    UPDATED_AT: { description: 'Time of the last change' },
    NAME: { description: 'Name' },
  } as const satisfies Record<keyof typeof LOCATION_SORT_KEYS, { description: string }>,
});

builder.queryFields((t) => ({
  inventoryLevel: t.field({
    type: LocationInventoryLevel,
    nullable: true,
    description: "An inventory level by id, if the caller can see it (its own product's, or at its own location); null otherwise. Requires inventory_read",
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true, description: 'Inventory level id (li_)' }) },
    resolve: (_root, args, ctx, info) =>
      ctx.reads.inventoryLevel.findFirst({ ...fieldQuery(ctx, info, 'LocationInventoryLevel'), where: { id: String(args.id), ...inventory.visibleLevelWhere(storeIdOf(ctx)) } }),
  }),
  inventoryLevels: t.connection(
    {
      nullable: false,
      type: LocationInventoryLevel,
      description:
        "Levels of the store's products (at its own and its fulfillment services' locations) and, for a fulfillment service, every level at its locations. Most recently updated first by default, ties by id. Requires inventory_read",
      authScopes: { scope: 'inventory_read' },
      args: {
        orderBy: t.arg({ type: InventoryLevelSortKey, defaultValue: 'UPDATED_AT', description: 'Sort key; UPDATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'true sorts oldest first instead of newest first' }),
        locationId: t.arg.id({ description: 'Only levels at this location (loc_)' }),
        productId: t.arg.id({ description: 'Only levels of this product (prd_)' }),
        sku: t.arg.string({ description: 'Only levels of the product with exactly this SKU' }),
        updatedAtMin: t.arg({ type: 'DateTime', description: 'Only levels updated at or after this time (inclusive, ISO 8601)' }),
        updatedAtMax: t.arg({ type: 'DateTime', description: 'Only levels updated before this time (exclusive, ISO 8601)' }),
        query: t.arg.string({ description: searchHelp('inventoryLevels') }),
      },
      resolve: (_root, args, ctx, info) => {
        const updatedAt = timeRange(args.updatedAtMin, args.updatedAtMax);
        const search = searchWhere<Prisma.InventoryLevelWhereInput>('inventoryLevels', storeIdOf(ctx), args.query);
        const filter: Prisma.InventoryLevelWhereInput = {
          ...inventory.visibleLevelWhere(storeIdOf(ctx)),
          ...(args.locationId ? { locationId: String(args.locationId) } : {}),
          ...(args.productId ? { productId: String(args.productId) } : {}),
          ...(args.sku ? { product: { sku: args.sku } } : {}),
          ...(updatedAt ? { updatedAt } : {}),
        };
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          scope: 'inventoryLevels',
          sort: keysetSortOf(LEVEL_SORT_KEYS[args.orderBy ?? 'UPDATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.inventoryLevel.findMany({
              ...connectionNodeQuery(ctx, info, 'LocationInventoryLevel', cursorColumns),
              where: { AND: [filter, where, search ?? {}] },
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
    description: "One of the store's locations or of a linked fulfillment service, by id; null when absent. Requires locations_read",
    authScopes: { scope: 'locations_read' },
    args: { id: t.arg.id({ required: true, description: 'Location id (loc_)' }) },
    resolve: (_root, args, ctx, info) =>
      ctx.reads.location.findFirst({ ...fieldQuery(ctx, info, 'Location'), where: { id: String(args.id), ...inventory.visibleLocationWhere(storeIdOf(ctx)) } }),
  }),
  locations: t.connection(
    {
      nullable: false,
      type: Location,
      description: "The store's locations and those of its linked fulfillment services, newest first by default, ties by id. Requires locations_read",
      authScopes: { scope: 'locations_read' },
      args: {
        orderBy: t.arg({ type: LocationSortKey, defaultValue: 'CREATED_AT', description: 'Sort key; CREATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'true sorts ascending (oldest, or A first) instead of descending' }),
      },
      resolve: (_root, args, ctx, info) =>
        keysetConnection({
          cursors: ctx.services.cursors,
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
    name: t.string({ description: 'Name, 1-255 characters (trimmed); required when creating, cannot be cleared' }),
    company: t.string({ description: 'Company at the address, at most 255 characters' }),
    street1: t.string({ description: 'Street line 1, at most 255 characters' }),
    street2: t.string({ description: 'Street line 2, at most 255 characters' }),
    city: t.string({ description: 'City, at most 255 characters' }),
    stateCode: t.string({ description: 'State or province abbreviation, e.g. "CA"; at most 10 characters' }),
    postalCode: t.string({ description: 'Postal code, at most 20 characters' }),
    countryCode: t.string({ description: 'ISO 3166-1 alpha-2 (any case; stored in upper case)' }),
    phone: t.string({ description: 'Phone number: 3-32 digits, spaces and ( ) . / - with an optional leading +' }),
  }),
});

const InventoryAdjustInput = builder.inputType('InventoryAdjustInput', {
  description: 'A change of one level, named by inventoryLevelId or by productId and locationId (created when missing)',
  fields: (t) => ({
    inventoryLevelId: t.id({ description: 'The level to change (li_); give either this or productId and locationId' }),
    productId: t.id({ description: "One of the store's products (prd_), with locationId" }),
    locationId: t.id({ description: "With productId: one of the store's locations or a linked fulfillment service's (loc_)" }),
    quantityDelta: t.int({ description: 'Change of the quantity on hand, in units (negative removes); whole number between -1,000,000 and 1,000,000' }),
    committedDelta: t.int({ description: 'Change of the units committed to orders; same range' }),
    reservedDelta: t.int({ description: 'Change of the units reserved (e.g. damaged); same range' }),
    buildableDelta: t.int({ description: 'Change of the units buildable from components; same range. At least one delta must be non-zero' }),
    reason: t.string({ required: true, description: 'Why, e.g. "cycle_count" or "damaged"; 1-255 characters, kept in the ledger and the inventory_level.updated event' }),
    referenceId: t.string({ description: 'What caused it, e.g. a document number; at most 255 characters' }),
  }),
});

const LocationPayload = payloadType('LocationPayload', 'location', Location, {
  type: 'Result of locationCreate, locationUpdate and locationSetDefault',
  field: 'The location as saved; null when refused',
});
const InventoryAdjustPayload = payloadType('InventoryAdjustPayload', 'inventoryLevel', LocationInventoryLevel, {
  type: 'Result of inventoryAdjust',
  field: 'The level after the change; null when refused',
});

builder.mutationFields((t) => ({
  locationCreate: t.field({
    type: LocationPayload,
    description: 'Creates a location of the store. Requires locations_write; userErrors: INVALID',
    authScopes: { scope: 'locations_write' },
    args: { input: t.arg({ type: LocationInput, required: true, description: 'The new location; name is required' }) },
    resolve: (_root, { input }, ctx) => withUserErrors({ ctx, input: 'input' }, () => inventory.createLocation(ctx.prisma, storeIdOf(ctx), input)),
  }),
  locationUpdate: t.field({
    type: LocationPayload,
    description:
      "Changes one of the store's own locations (a linked fulfillment service's is NOT_FOUND); fields left out stay as they are. Requires locations_write; userErrors: NOT_FOUND, INVALID",
    authScopes: { scope: 'locations_write' },
    args: {
      id: t.arg.id({ required: true, description: 'Location id (loc_)' }),
      input: t.arg({ type: LocationInput, required: true, description: 'The fields to change' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () => inventory.updateLocation(ctx.prisma, storeIdOf(ctx), String(id), input)),
  }),
  locationSetDefault: t.field({
    type: LocationPayload,
    description:
      "Makes the location (the store's own or a linked fulfillment service's) the one orders without a locationId commit stock at. Requires locations_write; userErrors: NOT_FOUND",
    authScopes: { scope: 'locations_write' },
    args: { id: t.arg.id({ required: true, description: 'Location id (loc_)' }) },
    resolve: (_root, { id }, ctx) =>
      withUserErrors({ ctx, args: ['id'] }, () => inventory.setDefaultLocation(ctx.prisma, storeIdOf(ctx), String(id))),
  }),
  inventoryAdjust: t.field({
    type: InventoryAdjustPayload,
    description:
      'Changes one level by deltas; quantity never goes below 0 and neither committed nor reserved above quantity (a level oversold by orders may still receive stock). Requires inventory_write; userErrors: INVALID, NOT_FOUND, UNPROCESSABLE (a figure would leave its bounds)',
    authScopes: { scope: 'inventory_write' },
    args: { input: t.arg({ type: InventoryAdjustInput, required: true, description: 'The level and its changes' }) },
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
