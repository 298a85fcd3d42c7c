// Inbound shipments in v3 (spec 2.8 and 4.7, decisions.md "Read interface v3"):
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
import { connectionNodeQuery, fieldQuery, keysetSortOf, registerNode, timeRange, type SortKeyDefinition } from './node.ts';
import { PurchaseOrder, PurchaseOrderConnection } from './purchasing.ts';
import { money, Money } from './scalars.ts';
import { payloadType, withUserErrors } from './userErrors.ts';

export const InboundShipmentStatus = builder.enumType('InboundShipmentStatus', {
  values: ['PENDING', 'IN_TRANSIT', 'PARTIALLY_RECEIVED', 'RECEIVED', 'CANCELLED'] as const,
});

export const InboundShipmentItem = builder.prismaObject('InboundShipmentItem', {
  // Select mode (builder.ts).
  select: { id: true },
  fields: (t) => ({
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Units shipped' }),
    receivedQuantity: t.exposeInt('receivedQuantity', { nullable: false, description: 'Units received in good condition' }),
    damagedQuantity: t.exposeInt('damagedQuantity', { nullable: false, description: 'Units received damaged' }),
    product: t.relation('product', { nullable: true, authScopes: { scope: 'products_read' } }),
    purchaseOrderItem: t.relation('purchaseOrderItem', { nullable: true, description: 'The purchase order line this item fulfills' }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(InboundShipmentItem, {
  scope: 'inventory_read',
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
  // Select mode (builder.ts).
  select: { id: true },
  fields: (t) => ({
    status: t.expose('status', { nullable: false, type: InboundShipmentStatus }),
    carrier: t.exposeString('carrier', { nullable: true }),
    shipmentId: t.exposeString('carrierShipmentId', { nullable: true, description: "The carrier's identifier" }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true }),
    trackingUrl: t.exposeString('trackingUrl', { nullable: true }),
    freightType: t.exposeString('freightType', { nullable: true }),
    paymentTerms: t.exposeString('paymentTerms', { nullable: true }),
    freightCost: t.field({ type: Money, nullable: true, select: { freightCost: true, currency: true }, resolve: (s) => money(s.freightCost, s.currency) }),
    dutyCost: t.field({ type: Money, nullable: true, select: { dutyCost: true, currency: true }, resolve: (s) => money(s.dutyCost, s.currency) }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code of freightCost and dutyCost' }),
    estimatedArrivalDate: t.expose('estimatedArrivalDate', { type: 'Date', nullable: true }),
    actualArrivalDate: t.expose('actualArrivalDate', { type: 'Date', nullable: true }),
    location: t.relation('location', { nullable: true, description: 'Destination', authScopes: { scope: 'locations_read' } }),
    items: t.relatedConnection(
      'items',
      { nullable: false, cursor: 'id', authScopes: { scope: 'inventory_read' }, query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
      InboundShipmentItemConnection,
    ),
    purchaseOrders: t.connection(
      {
        nullable: false,
        type: PurchaseOrder,
        description: 'Purchase orders the shipment fulfills',
        authScopes: { scope: 'inventory_read' },
        select: (args, ctx, nestedSelection) => ({
          purchaseOrders: shipmentPurchaseOrders.getQuery(args, ctx, (selection) => nestedSelection(selection, PURCHASE_ORDER_NODE_PATHS as never)),
        }),
        resolve: (shipment, args, ctx) => shipmentPurchaseOrders.resolve(shipment.purchaseOrders, args, ctx),
      },
      PurchaseOrderConnection,
    ),
    skuCount: t.int({ nullable: false, description: 'Number of distinct products', resolve: async (s, _args, ctx) => (await totalsLoader(ctx).load(s.id)).skuCount }),
    itemCount: t.int({ nullable: false, description: 'Units shipped, all items', resolve: async (s, _args, ctx) => (await totalsLoader(ctx).load(s.id)).itemCount }),
    receivedCount: t.int({
      nullable: false,
      description: 'Units received in good condition, all items',
      resolve: async (s, _args, ctx) => (await totalsLoader(ctx).load(s.id)).receivedCount,
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(InboundShipment, {
  scope: 'inventory_read',
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
  values: Object.keys(SHIPMENT_SORT_KEYS) as (keyof typeof SHIPMENT_SORT_KEYS)[],
});

builder.queryFields((t) => ({
  inboundShipment: t.field({
    type: InboundShipment,
    nullable: true,
    description: 'An inbound shipment of the store; null when absent',
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) => ctx.reads.inboundShipment.findFirst({ ...fieldQuery(ctx, info, 'InboundShipment'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  inboundShipments: t.connection(
    {
      nullable: false,
      type: InboundShipment,
      description: 'Inbound shipments of the store; by the sort key, newest (largest) first unless `reverse`; nulls last, ties by id',
      authScopes: { scope: 'inventory_read' },
      args: {
        orderBy: t.arg({ type: InboundShipmentSortKey, defaultValue: 'CREATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'Flips the direction of the sort key' }),
        status: t.arg({ type: InboundShipmentStatus, description: 'Only shipments with this status' }),
        statuses: t.arg({ type: [InboundShipmentStatus], description: 'Only shipments with one of these statuses' }),
        locationId: t.arg.id({ description: 'Only shipments to this location' }),
        createdAtMin: t.arg({ type: 'DateTime', description: 'Inclusive' }),
        createdAtMax: t.arg({ type: 'DateTime', description: 'Exclusive' }),
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
  fields: (t) => ({
    productId: t.id({ description: 'May be left out when purchaseOrderItemId is given' }),
    quantity: t.int({ required: true }),
    purchaseOrderItemId: t.id({ description: 'The purchase order line this item fulfills' }),
  }),
});

const InboundShipmentCreateInput = builder.inputType('InboundShipmentCreateInput', {
  fields: (t) => ({
    locationId: t.id({ required: true, description: "Destination: one of the store's locations or a linked fulfillment service's" }),
    carrier: t.string(),
    shipmentId: t.string({ description: "The carrier's identifier" }),
    trackingNumber: t.string(),
    trackingUrl: t.string(),
    freightType: t.string(),
    paymentTerms: t.string(),
    currency: t.string({ description: "ISO 4217 code of freightCost and dutyCost; the store's currency by default" }),
    freightCost: t.field({ type: 'Decimal' }),
    dutyCost: t.field({ type: 'Decimal' }),
    estimatedArrivalDate: t.field({ type: 'Date' }),
    items: t.field({ type: [InboundShipmentItemInput], required: true }),
  }),
});

const ReceiveItemInput = builder.inputType('InboundShipmentReceiveItemInput', {
  fields: (t) => ({
    itemId: t.id({ required: true }),
    receivedQuantity: t.int({ description: 'Good units received now' }),
    damagedQuantity: t.int({ description: 'Damaged units received now (they count as on hand and reserved)' }),
  }),
});

const ReceiveInput = builder.inputType('InboundShipmentReceiveInput', {
  fields: (t) => ({
    items: t.field({ type: [ReceiveItemInput], required: true }),
    actualArrivalDate: t.field({ type: 'Date', description: 'Defaults to today (UTC) on the first receipt' }),
  }),
});

const InboundShipmentPayload = payloadType('InboundShipmentPayload', 'inboundShipment', InboundShipment);

const optionalId = (id: string | number | null | undefined) => (id === null || id === undefined ? id : String(id));

builder.mutationFields((t) => ({
  inboundShipmentCreate: t.field({
    type: InboundShipmentPayload,
    description: 'A new PENDING shipment; items may be tied to purchase order items',
    authScopes: { scope: 'inventory_write' },
    args: { input: t.arg({ type: InboundShipmentCreateInput, required: true }) },
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
    description: 'PENDING -> IN_TRANSIT',
    authScopes: { scope: 'inventory_write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => withUserErrors({ ctx, args: ['id'] }, () => inbound.markInboundShipmentInTransit(ctx.prisma, storeIdOf(ctx), String(id))),
  }),
  inboundShipmentReceive: t.field({
    type: InboundShipmentPayload,
    description:
      'Receives good and damaged units of items of an IN_TRANSIT or PARTIALLY_RECEIVED shipment: stock at the destination, purchase order items and statuses follow',
    authScopes: { scope: 'inventory_write' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ReceiveInput, required: true }) },
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
    description: 'PENDING or IN_TRANSIT -> CANCELLED',
    authScopes: { scope: 'inventory_write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => withUserErrors({ ctx, args: ['id'] }, () => inbound.cancelInboundShipment(ctx.prisma, storeIdOf(ctx), String(id))),
  }),
}));
