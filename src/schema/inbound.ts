// Inbound shipments in v3 (docs/interface-rules.md, "Inventory and inbound shipments"):
// InboundShipment and its items, the `inboundShipments` query with its sort keys
// and filters, and the shipment mutations (inventory_write). Rules live in
// domain/inbound.ts.
import DataLoader from 'dataloader';
import { prismaConnectionHelpers } from '@pothos/plugin-prisma';
import type { Prisma } from '../generated/prisma/client.ts';
import * as inbound from '../domain/inbound.ts';
import { builder } from './builder.ts';
import { perRequest, storeIdOf, type GraphQLContext } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery, fieldQuery, keysetSortOf, PRISMA_CURSORS, registerNode, timeRange, type SortKeyDefinition } from './node.ts';
import { PLANNED_READ } from './planned.ts';
import { PurchaseOrder, PurchaseOrderConnection } from './purchasing.ts';
import { money, Money } from './scalars.ts';
import { payloadType, withUserErrors } from './userErrors.ts';

export const InboundShipmentStatus = builder.enumType('InboundShipmentStatus', {
  description: 'Where an inbound shipment stands: PENDING -> IN_TRANSIT -> PARTIALLY_RECEIVED -> RECEIVED; PENDING or IN_TRANSIT -> CANCELLED',
  values: {
    PENDING: { description: 'Created, not yet on its way; can be marked in transit or cancelled' },
    IN_TRANSIT: { description: 'On its way (inboundShipmentMarkInTransit); can receive items or be cancelled' },
    PARTIALLY_RECEIVED: { description: 'Some units received, others still open; can receive more' },
    RECEIVED: { description: 'Every shipped unit received, good or damaged; final' },
    CANCELLED: { description: 'Cancelled before any receipt; final' },
  } as const,
});

export const InboundShipmentItem = builder.prismaObject('InboundShipmentItem', {
  description: 'One product on an inbound shipment, with the units shipped and received so far',
  // Select mode (builder.ts); the id loads only for fields that read it.
  select: { id: false },
  fields: (t) => ({
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Units shipped (at least 1)' }),
    receivedQuantity: t.exposeInt('receivedQuantity', { nullable: false, description: 'Units received in good condition so far' }),
    damagedQuantity: t.exposeInt('damagedQuantity', { nullable: false, description: 'Units received damaged so far; received plus damaged never exceed quantity' }),
    product: t.relation('product', { nullable: true, description: 'The product shipped. Requires products_read', authScopes: { scope: 'products_read' } }),
    purchaseOrderItem: t.relation('purchaseOrderItem', { nullable: true, description: 'The purchase order line this item fulfills; null when none' }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the item was created with its shipment (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When units of the item were last received (ISO 8601, UTC); its creation time before' }),
  }),
});

registerNode(InboundShipmentItem, {
  scope: 'inventory_read',
  idDescription: 'Inbound shipment item id, prefix isp_ (node(id:) needs inventory_read); the itemId of inboundShipmentReceive',
  load: (id, ctx, info) => ctx.reads.inboundShipmentItem.findFirst({ ...fieldQuery(ctx, info, 'InboundShipmentItem'), where: { id, shipment: { storeId: storeIdOf(ctx) } } }),
});

export const InboundShipmentItemConnection = builder.connectionObject({ type: InboundShipmentItem, name: 'InboundShipmentItemConnection' });

// The purchase orders of a shipment sit behind the join table; pages walk the join rows.
// The helper plans only `edges.node`; this plans `nodes` as well, the way the plugin's
// own relatedConnection does (its indirect-include form of nestedSelection's path).
const PURCHASE_ORDER_NODE_PATHS = { getType: () => 'PurchaseOrder', paths: [[{ name: 'nodes' }], [{ name: 'edges' }, { name: 'node' }]] };
const shipmentPurchaseOrders = prismaConnectionHelpers(builder, 'InboundShipmentPurchaseOrder', {
  cursor: 'shipmentId_purchaseOrderId',
  // Names are unique within a store, so the order is total and stable.
  query: { orderBy: { purchaseOrder: { name: 'asc' } } },
  select: (nodeSelection) => ({ purchaseOrder: nodeSelection(true) }),
  resolveNode: (link) => link.purchaseOrder,
});

interface ShipmentTotals {
  skuCount: number;
  itemCount: number;
  receivedCount: number;
}

/** Item totals of many shipments in one grouped query per request tick. */
function totalsLoader(ctx: GraphQLContext) {
  return perRequest(
    ctx,
    totalsLoader,
    () =>
      new DataLoader<string, ShipmentTotals>(async (shipmentIds) => {
        const groups = await ctx.prisma.inboundShipmentItem.groupBy({
          by: ['shipmentId', 'productId'],
          where: { shipmentId: { in: [...shipmentIds] } },
          _sum: { quantity: true, receivedQuantity: true },
        });
        return shipmentIds.map((id) => {
          const rows = groups.filter((g) => g.shipmentId === id);
          return {
            skuCount: rows.length,
            itemCount: rows.reduce((sum, g) => sum + (g._sum.quantity ?? 0), 0),
            receivedCount: rows.reduce((sum, g) => sum + (g._sum.receivedQuantity ?? 0), 0),
          };
        });
      }),
  );
}

export const InboundShipment = builder.prismaObject('InboundShipment', {
  description: "Stock on its way to one of the store's locations (or a linked fulfillment service's), optionally fulfilling purchase order items",
  // Select mode (builder.ts).
  select: { id: true },
  fields: (t) => ({
    status: t.expose('status', { nullable: false, type: InboundShipmentStatus, description: 'Where the shipment stands; PENDING when created' }),
    carrier: t.exposeString('carrier', { nullable: true, description: 'Carrier name, e.g. "UPS"; null when not given' }),
    shipmentId: t.exposeString('carrierShipmentId', { nullable: true, description: "The carrier's identifier of the shipment; null when not given" }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true, description: "The carrier's tracking number; null when not given" }),
    trackingUrl: t.exposeString('trackingUrl', { nullable: true, description: 'http or https tracking page; null when not given' }),
    freightType: t.exposeString('freightType', { nullable: true, description: 'Kind of freight as the merchant names it (e.g. "LTL", "air"); null when not given' }),
    paymentTerms: t.exposeString('paymentTerms', { nullable: true, description: 'Payment terms as the merchant names them (e.g. "Net 30"); null when not given' }),
    freightCost: t.field({
      type: Money,
      nullable: true,
      description: 'Cost of the freight, in `currency`; null when not given',
      select: { freightCost: true, currency: true },
      resolve: (s) => money(s.freightCost, s.currency),
    }),
    dutyCost: t.field({
      type: Money,
      nullable: true,
      description: 'Customs duties, in `currency`; null when not given',
      select: { dutyCost: true, currency: true },
      resolve: (s) => money(s.dutyCost, s.currency),
    }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code of freightCost and dutyCost' }),
    estimatedArrivalDate: t.expose('estimatedArrivalDate', { type: 'Date', nullable: true, description: 'Expected arrival day (YYYY-MM-DD); null when not given' }),
    actualArrivalDate: t.expose('actualArrivalDate', {
      type: 'Date',
      nullable: true,
      description: 'Day it arrived (YYYY-MM-DD), set on the first receipt (today in UTC unless given); null before',
    }),
    location: t.relation('location', { nullable: true, description: 'Destination. Requires locations_read', authScopes: { scope: 'locations_read' } }),
    items: t.relatedConnection(
      'items',
      {
        nullable: false,
        cursor: 'id',
        description: 'The products shipped, oldest first (ties by id). Requires inventory_read',
        authScopes: { scope: 'inventory_read' },
        query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
      },
      InboundShipmentItemConnection,
    ),
    purchaseOrders: t.connection(
      {
        nullable: false,
        type: PurchaseOrder,
        description: 'Purchase orders the shipment fulfills, by name A-Z. Requires inventory_read',
        authScopes: { scope: 'inventory_read' },
        extensions: PRISMA_CURSORS,
        select: (args, ctx, nestedSelection) => ({
          purchaseOrders: shipmentPurchaseOrders.getQuery(args, ctx, (selection) => nestedSelection(selection, PURCHASE_ORDER_NODE_PATHS as never)),
        }),
        resolve: (shipment, args, ctx) => shipmentPurchaseOrders.resolve(shipment.purchaseOrders, args, ctx),
      },
      PurchaseOrderConnection,
    ),
    skuCount: t.int({ nullable: false, description: 'Number of distinct products on the shipment', resolve: async (s, _args, ctx) => (await totalsLoader(ctx).load(s.id)).skuCount }),
    itemCount: t.int({ nullable: false, description: 'Units shipped, summed over all items', resolve: async (s, _args, ctx) => (await totalsLoader(ctx).load(s.id)).itemCount }),
    receivedCount: t.int({
      nullable: false,
      description: 'Units received in good condition, summed over all items (damaged units not counted)',
      resolve: async (s, _args, ctx) => (await totalsLoader(ctx).load(s.id)).receivedCount,
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the shipment was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the shipment last changed status or received units (ISO 8601, UTC)' }),
  }),
});

registerNode(InboundShipment, {
  scope: 'inventory_read',
  idDescription: 'Inbound shipment id, prefix inb_ (node(id:) needs inventory_read)',
  load: (id, ctx, info) => ctx.reads.inboundShipment.findFirst({ ...fieldQuery(ctx, info, 'InboundShipment'), where: { id, storeId: storeIdOf(ctx) } }),
});

export const InboundShipmentConnection = builder.connectionObject({ type: InboundShipment, name: 'InboundShipmentConnection' });

// ---------------------------------------------------------------- root queries

const SHIPMENT_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  ESTIMATED_ARRIVAL_DATE: { field: 'estimatedArrivalDate', kind: 'date', nullable: true },
} as const satisfies Record<string, SortKeyDefinition>;

export const InboundShipmentSortKey = builder.enumType('InboundShipmentSortKey', {
  description: 'Order of inbound shipments: newest (largest) first unless `reverse`; nulls last, ties by id',
  values: {
    CREATED_AT: { description: 'Creation time (the default)' },
    UPDATED_AT: { description: 'Time of the last change' },
    ESTIMATED_ARRIVAL_DATE: { description: 'Expected arrival day; shipments without one come last' },
  } as const satisfies Record<keyof typeof SHIPMENT_SORT_KEYS, { description: string }>,
});

builder.queryFields((t) => ({
  inboundShipment: t.field({
    type: InboundShipment,
    nullable: true,
    description: "An inbound shipment of the store by id; null when absent or another store's. Requires inventory_read",
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true, description: 'Inbound shipment id (inb_)' }) },
    resolve: (_root, args, ctx, info) => ctx.reads.inboundShipment.findFirst({ ...fieldQuery(ctx, info, 'InboundShipment'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  inboundShipments: t.connection(
    {
      nullable: false,
      type: InboundShipment,
      description: 'Inbound shipments of the store; by the sort key, newest (largest) first unless `reverse`; nulls last, ties by id. Requires inventory_read',
      authScopes: { scope: 'inventory_read' },
      // Its one read (plugin-prisma's plan of the selection, nested connections taken with it) brings every row the selection reads.
      extensions: { [PLANNED_READ]: true },
      args: {
        orderBy: t.arg({ type: InboundShipmentSortKey, defaultValue: 'CREATED_AT', description: 'Sort key; CREATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'Flips the direction of the sort key' }),
        status: t.arg({ type: InboundShipmentStatus, description: 'Only shipments with this status' }),
        statuses: t.arg({ type: [InboundShipmentStatus], description: 'Only shipments with one of these statuses (an empty list matches none; with `status`, both must hold)' }),
        locationId: t.arg.id({ description: 'Only shipments to this location (loc_)' }),
        createdAtMin: t.arg({ type: 'DateTime', description: 'Only shipments created at or after this time (inclusive, ISO 8601)' }),
        createdAtMax: t.arg({ type: 'DateTime', description: 'Only shipments created before this time (exclusive, ISO 8601)' }),
      },
      resolve: (_root, args, ctx, info) => {
        const createdAt = timeRange(args.createdAtMin, args.createdAtMax);
        const filter: Prisma.InboundShipmentWhereInput = {
          storeId: storeIdOf(ctx),
          ...(args.status ? { status: args.status } : {}),
          ...(args.statuses ? { AND: [{ status: { in: args.statuses } }] } : {}),
          ...(args.locationId ? { locationId: String(args.locationId) } : {}),
          ...(createdAt ? { createdAt } : {}),
        };
        return keysetConnection({
          cursors: ctx.services.cursors,
          args,
          scope: 'inboundShipments',
          sort: keysetSortOf(SHIPMENT_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.inboundShipment.findMany({
              ...connectionNodeQuery(ctx, info, 'InboundShipment', cursorColumns),
              where: { AND: [filter, where] },
              orderBy,
              take,
            } as Prisma.InboundShipmentFindManyArgs),
        });
      },
    },
    InboundShipmentConnection,
  ),
}));

// ---------------------------------------------------------------- mutations

const InboundShipmentItemInput = builder.inputType('InboundShipmentItemInput', {
  description: 'One product on a new inbound shipment; each product (and purchase order item) at most once',
  fields: (t) => ({
    productId: t.id({ description: "One of the store's products (prd_); may be left out when purchaseOrderItemId is given (its product is used)" }),
    quantity: t.int({
      required: true,
      description: 'Units shipped, 1 to 1,000,000; with a purchase order item, at most its units not yet on another (uncancelled) shipment',
    }),
    purchaseOrderItemId: t.id({ description: 'The purchase order line (poi_) this item fulfills; its order must be DRAFT, ORDERED or PARTIALLY_RECEIVED' }),
  }),
});

const InboundShipmentCreateInput = builder.inputType('InboundShipmentCreateInput', {
  description: 'A new inbound shipment',
  fields: (t) => ({
    locationId: t.id({ required: true, description: "Destination (loc_): one of the store's locations or a linked fulfillment service's" }),
    carrier: t.string({ description: 'Carrier name, e.g. "UPS"; at most 100 characters' }),
    shipmentId: t.string({ description: "The carrier's identifier of the shipment; at most 100 characters" }),
    trackingNumber: t.string({ description: "The carrier's tracking number; at most 100 characters" }),
    trackingUrl: t.string({ description: 'http or https tracking page; at most 2048 characters' }),
    freightType: t.string({ description: 'Kind of freight as the merchant names it (e.g. "LTL", "air"); at most 100 characters' }),
    paymentTerms: t.string({ description: 'Payment terms as the merchant names them (e.g. "Net 30"); at most 100 characters' }),
    currency: t.string({ description: "ISO 4217 code of freightCost and dutyCost; the store's currency by default" }),
    freightCost: t.field({ type: 'Decimal', description: 'Cost of the freight in `currency`, a decimal string >= 0 with at most 4 decimals (e.g. "250.00")' }),
    dutyCost: t.field({ type: 'Decimal', description: 'Customs duties in `currency`, a decimal string >= 0 with at most 4 decimals' }),
    estimatedArrivalDate: t.field({ type: 'Date', description: 'Expected arrival day, YYYY-MM-DD' }),
    items: t.field({ type: [InboundShipmentItemInput], required: true, description: 'The products shipped: 1 to 500 items' }),
  }),
});

const ReceiveItemInput = builder.inputType('InboundShipmentReceiveItemInput', {
  description: 'Units of one shipment item received now; good plus damaged must be at least 1 and at most the units still open',
  fields: (t) => ({
    itemId: t.id({ required: true, description: 'An item (isp_) of this shipment; each at most once' }),
    receivedQuantity: t.int({ description: 'Good units received now, added to the destination level\'s quantity; 0 by default' }),
    damagedQuantity: t.int({ description: 'Damaged units received now (they count as on hand and reserved); 0 by default' }),
  }),
});

const ReceiveInput = builder.inputType('InboundShipmentReceiveInput', {
  description: 'A receipt of units of some items of an inbound shipment',
  fields: (t) => ({
    items: t.field({ type: [ReceiveItemInput], required: true, description: 'The items received now; at least one' }),
    actualArrivalDate: t.field({ type: 'Date', description: 'Day it arrived, YYYY-MM-DD; when left out, the day already recorded, else today (UTC)' }),
  }),
});

const InboundShipmentPayload = payloadType('InboundShipmentPayload', 'inboundShipment', InboundShipment, {
  type: 'Result of the inbound shipment mutations',
  field: 'The shipment as saved; null when refused',
});

const optionalId = (id: string | number | null | undefined) => (id === null || id === undefined ? id : String(id));

builder.mutationFields((t) => ({
  inboundShipmentCreate: t.field({
    type: InboundShipmentPayload,
    description:
      'Creates a PENDING shipment; items may be tied to purchase order items, whose orders it then fulfills. Requires inventory_write; userErrors: INVALID (including unknown location, product or purchase order item)',
    authScopes: { scope: 'inventory_write' },
    args: { input: t.arg({ type: InboundShipmentCreateInput, required: true, description: 'The new shipment' }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, () =>
        inbound.createInboundShipment(ctx.prisma, storeIdOf(ctx), {
          ...input,
          locationId: String(input.locationId),
          items: input.items.map((item) => ({ ...item, productId: optionalId(item.productId), purchaseOrderItemId: optionalId(item.purchaseOrderItemId) })),
        }),
      ),
  }),
  inboundShipmentMarkInTransit: t.field({
    type: InboundShipmentPayload,
    description: 'Moves a shipment from PENDING to IN_TRANSIT. Requires inventory_write; userErrors: NOT_FOUND, UNPROCESSABLE (not PENDING)',
    authScopes: { scope: 'inventory_write' },
    args: { id: t.arg.id({ required: true, description: 'Inbound shipment id (inb_)' }) },
    resolve: (_root, { id }, ctx) => withUserErrors({ ctx, args: ['id'] }, () => inbound.markInboundShipmentInTransit(ctx.prisma, storeIdOf(ctx), String(id))),
  }),
  inboundShipmentReceive: t.field({
    type: InboundShipmentPayload,
    description:
      'Receives good and damaged units of items of an IN_TRANSIT or PARTIALLY_RECEIVED shipment: stock at the destination, purchase order items and statuses follow. Requires inventory_write; userErrors: NOT_FOUND (shipment or item), UNPROCESSABLE (status), INVALID',
    authScopes: { scope: 'inventory_write' },
    args: {
      id: t.arg.id({ required: true, description: 'Inbound shipment id (inb_)' }),
      input: t.arg({ type: ReceiveInput, required: true, description: 'The units received' }),
    },
    resolve: (_root, { id, input }, ctx) =>
      withUserErrors({ ctx, input: 'input', args: ['id'] }, () =>
        inbound.receiveInboundShipment(ctx.prisma, storeIdOf(ctx), String(id), {
          ...input,
          items: input.items.map((item) => ({ ...item, itemId: String(item.itemId) })),
        }),
      ),
  }),
  inboundShipmentCancel: t.field({
    type: InboundShipmentPayload,
    description: 'Cancels a PENDING or IN_TRANSIT shipment; no stock moves. Requires inventory_write; userErrors: NOT_FOUND, UNPROCESSABLE (other statuses)',
    authScopes: { scope: 'inventory_write' },
    args: { id: t.arg.id({ required: true, description: 'Inbound shipment id (inb_)' }) },
    resolve: (_root, { id }, ctx) => withUserErrors({ ctx, args: ['id'] }, () => inbound.cancelInboundShipment(ctx.prisma, storeIdOf(ctx), String(id))),
  }),
}));
