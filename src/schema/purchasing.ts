// Purchase orders in v3 (spec 2.8 PurchaseOrderItem, decisions.md PurchaseOrder):
// types, root lookups and lists, and the create mutation (inventory_write).
import type { Prisma } from '../generated/prisma/client.ts';
import * as purchasing from '../domain/purchasing.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { keysetConnection } from './keyset.ts';
import { connectionNodeQuery, fieldQuery, keysetSortOf, registerNode, timeRange, type SortKeyDefinition } from './node.ts';
import { money, Money } from './scalars.ts';
import { payloadType, withUserErrors } from './userErrors.ts';

export const PurchaseOrderStatus = builder.enumType('PurchaseOrderStatus', {
  values: ['DRAFT', 'ORDERED', 'PARTIALLY_RECEIVED', 'RECEIVED', 'CANCELLED'] as const,
});

export const PurchaseOrderItem = builder.prismaObject('PurchaseOrderItem', {
  description: 'A line item ordered on a purchase order',
  fields: (t) => ({
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Quantity ordered' }),
    receivedQuantity: t.exposeInt('receivedQuantity', { nullable: false, description: 'Received so far in good condition' }),
    damagedQuantity: t.exposeInt('damagedQuantity', { nullable: false, description: 'Received damaged' }),
    unitCost: t.field({
      type: Money,
      nullable: true,
      description: 'Cost per unit',
      select: { purchaseOrder: { select: { currency: true } } },
      resolve: (item) => money(item.unitCost, item.purchaseOrder.currency),
    }),
    totalTax: t.field({
      type: Money,
      nullable: true,
      description: 'Tax on the line',
      select: { purchaseOrder: { select: { currency: true } } },
      resolve: (item) => money(item.totalTax, item.purchaseOrder.currency),
    }),
    product: t.relation('product', { nullable: true, authScopes: { scope: 'products_read' } }),
    purchaseOrder: t.relation('purchaseOrder', { nullable: false }),
  }),
});

registerNode(PurchaseOrderItem, {
  scope: 'inventory_read',
  load: (id, ctx, info) => ctx.reads.purchaseOrderItem.findFirst({ ...fieldQuery(ctx, info, 'PurchaseOrderItem'), where: { id, purchaseOrder: { storeId: storeIdOf(ctx) } } }),
});

export const PurchaseOrderItemConnection = builder.connectionObject({ type: PurchaseOrderItem, name: 'PurchaseOrderItemConnection' });

export const PurchaseOrder = builder.prismaObject('PurchaseOrder', {
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false }),
    vendor: t.exposeString('vendor', { nullable: true }),
    status: t.expose('status', { nullable: false, type: PurchaseOrderStatus }),
    expectedAt: t.expose('expectedAt', { type: 'DateTime', nullable: true }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code of the items’ amounts' }),
    items: t.relatedConnection(
      'items',
      { nullable: false, cursor: 'id', authScopes: { scope: 'inventory_read' }, query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
      PurchaseOrderItemConnection,
    ),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

registerNode(PurchaseOrder, {
  scope: 'inventory_read',
  load: (id, ctx, info) => ctx.reads.purchaseOrder.findFirst({ ...fieldQuery(ctx, info, 'PurchaseOrder'), where: { id, storeId: storeIdOf(ctx) } }),
});

export const PurchaseOrderConnection = builder.connectionObject({ type: PurchaseOrder, name: 'PurchaseOrderConnection' });

const PURCHASE_ORDER_SORT_KEYS = {
  CREATED_AT: { field: 'createdAt', kind: 'date' },
  UPDATED_AT: { field: 'updatedAt', kind: 'date' },
  EXPECTED_AT: { field: 'expectedAt', kind: 'date', nullable: true },
  NAME: { field: 'name', kind: 'string' },
} as const satisfies Record<string, SortKeyDefinition>;

export const PurchaseOrderSortKey = builder.enumType('PurchaseOrderSortKey', {
  values: Object.keys(PURCHASE_ORDER_SORT_KEYS) as (keyof typeof PURCHASE_ORDER_SORT_KEYS)[],
});

builder.queryFields((t) => ({
  purchaseOrder: t.field({
    type: PurchaseOrder,
    nullable: true,
    description: 'A purchase order of the store; null when absent',
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx, info) => ctx.reads.purchaseOrder.findFirst({ ...fieldQuery(ctx, info, 'PurchaseOrder'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  purchaseOrders: t.connection(
    {
      nullable: false,
      type: PurchaseOrder,
      description: 'Purchase orders of the store; newest first by default',
      authScopes: { scope: 'inventory_read' },
      args: {
        orderBy: t.arg({ type: PurchaseOrderSortKey, defaultValue: 'CREATED_AT' }),
        reverse: t.arg.boolean({ defaultValue: false }),
        status: t.arg({ type: PurchaseOrderStatus }),
        createdAtMin: t.arg({ type: 'DateTime', description: 'Inclusive' }),
        createdAtMax: t.arg({ type: 'DateTime', description: 'Exclusive' }),
      },
      resolve: (_root, args, ctx, info) => {
        const createdAt = timeRange(args.createdAtMin, args.createdAtMax);
        const filter: Prisma.PurchaseOrderWhereInput = {
          storeId: storeIdOf(ctx),
          ...(args.status ? { status: args.status } : {}),
          ...(createdAt ? { createdAt } : {}),
        };
        return keysetConnection({
          args,
          scope: 'purchaseOrders',
          sort: keysetSortOf(PURCHASE_ORDER_SORT_KEYS[args.orderBy ?? 'CREATED_AT'], args.reverse),
          fetch: ({ where, orderBy, take, cursorColumns }) =>
            ctx.reads.purchaseOrder.findMany({
              ...connectionNodeQuery(ctx, info, 'PurchaseOrder', cursorColumns),
              where: { AND: [filter, where] },
              orderBy,
              take,
            } as Prisma.PurchaseOrderFindManyArgs),
        });
      },
    },
    PurchaseOrderConnection,
  ),
}));

const PurchaseOrderItemInput = builder.inputType('PurchaseOrderItemInput', {
  fields: (t) => ({
    productId: t.id({ required: true }),
    quantity: t.int({ required: true }),
    unitCost: t.field({ type: 'Decimal', description: "In the purchase order's currency" }),
    totalTax: t.field({ type: 'Decimal', description: "In the purchase order's currency" }),
  }),
});

const PurchaseOrderCreateInput = builder.inputType('PurchaseOrderCreateInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique within the store, e.g. "PO-1001"' }),
    vendor: t.string(),
    status: t.field({ type: PurchaseOrderStatus, description: 'DRAFT (default) or ORDERED' }),
    expectedAt: t.field({ type: 'DateTime' }),
    currency: t.string({ description: "ISO 4217; the store's currency by default" }),
    items: t.field({ type: [PurchaseOrderItemInput], required: true }),
  }),
});

const PurchaseOrderPayload = payloadType('PurchaseOrderPayload', 'purchaseOrder', PurchaseOrder);

builder.mutationFields((t) => ({
  purchaseOrderCreate: t.field({
    type: PurchaseOrderPayload,
    authScopes: { scope: 'inventory_write' },
    args: { input: t.arg({ type: PurchaseOrderCreateInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, () =>
        purchasing.createPurchaseOrder(ctx.prisma, storeIdOf(ctx), {
          ...input,
          items: input.items.map((item) => ({ ...item, productId: String(item.productId) })),
        }),
      ),
  }),
}));
