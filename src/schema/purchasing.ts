// Purchase orders in v3 (docs/interface-rules.md, "Inventory and inbound shipments"):
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
  description: 'Where a purchase order stands; receiving its items on inbound shipments moves it to PARTIALLY_RECEIVED and RECEIVED',
  values: {
    DRAFT: { description: 'Being prepared (the default at creation); its items can already be put on inbound shipments' },
    ORDERED: { description: 'Placed with the vendor; its items can be put on inbound shipments' },
    PARTIALLY_RECEIVED: { description: 'Some units received, others still open' },
    RECEIVED: { description: 'Every ordered unit received, good or damaged; its items can no longer be put on new shipments' },
    CANCELLED: { description: 'Cancelled; its items cannot be put on shipments. No operation of this interface sets it yet' },
  } as const,
});

export const PurchaseOrderItem = builder.prismaObject('PurchaseOrderItem', {
  description: 'A line item ordered on a purchase order',
  fields: (t) => ({
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the item was created with its purchase order (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When units of the item were last received (ISO 8601, UTC); its creation time before' }),
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Quantity ordered, in units (at least 1)' }),
    receivedQuantity: t.exposeInt('receivedQuantity', { nullable: false, description: 'Units received so far in good condition, through inbound shipments' }),
    damagedQuantity: t.exposeInt('damagedQuantity', { nullable: false, description: 'Units received damaged so far' }),
    unitCost: t.field({
      type: Money,
      nullable: true,
      description: "Cost per unit, in the purchase order's currency; null when not given",
      select: { purchaseOrder: { select: { currency: true } } },
      resolve: (item) => money(item.unitCost, item.purchaseOrder.currency),
    }),
    totalTax: t.field({
      type: Money,
      nullable: true,
      description: "Tax on the whole line, in the purchase order's currency; null when not given",
      select: { purchaseOrder: { select: { currency: true } } },
      resolve: (item) => money(item.totalTax, item.purchaseOrder.currency),
    }),
    product: t.relation('product', { nullable: true, description: 'The product ordered. Requires products_read', authScopes: { scope: 'products_read' } }),
    purchaseOrder: t.relation('purchaseOrder', { nullable: false, description: 'The purchase order this line belongs to' }),
  }),
});

registerNode(PurchaseOrderItem, {
  scope: 'inventory_read',
  idDescription: 'Purchase order item id, prefix poi_ (node(id:) needs inventory_read); the purchaseOrderItemId of inbound shipment items',
  load: (id, ctx, info) => ctx.reads.purchaseOrderItem.findFirst({ ...fieldQuery(ctx, info, 'PurchaseOrderItem'), where: { id, purchaseOrder: { storeId: storeIdOf(ctx) } } }),
});

export const PurchaseOrderItemConnection = builder.connectionObject({ type: PurchaseOrderItem, name: 'PurchaseOrderItemConnection' });

export const PurchaseOrder = builder.prismaObject('PurchaseOrder', {
  description: 'What the merchant ordered from a vendor, line by line; inbound shipments bring the goods',
  // Select mode (builder.ts): a shipment's page of purchase orders loads the columns asked for, not whole
  // orders, and the id only for fields that read it.
  select: { id: false },
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false, description: 'Name, unique within the store, e.g. "PO-1001" (1-100 characters)' }),
    vendor: t.exposeString('vendor', { nullable: true, description: 'The vendor ordered from; null when not given' }),
    status: t.expose('status', { nullable: false, type: PurchaseOrderStatus, description: 'Where the order stands' }),
    expectedAt: t.expose('expectedAt', { type: 'DateTime', nullable: true, description: 'When the goods are expected (ISO 8601, UTC); null when not given' }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code of the items’ amounts' }),
    items: t.relatedConnection(
      'items',
      {
        nullable: false,
        cursor: 'id',
        description: 'The lines ordered, oldest first (ties by id). Requires inventory_read',
        authScopes: { scope: 'inventory_read' },
        query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
      },
      PurchaseOrderItemConnection,
    ),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the purchase order was created (ISO 8601, UTC)' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the purchase order last changed, e.g. its status (ISO 8601, UTC)' }),
  }),
});

registerNode(PurchaseOrder, {
  scope: 'inventory_read',
  idDescription: 'Purchase order id, prefix po_ (node(id:) needs inventory_read)',
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
  description: 'Order of purchase orders: descending (newest, or Z first) unless `reverse`; nulls last, ties by id',
  values: {
    CREATED_AT: { description: 'Creation time (the default)' },
    UPDATED_AT: { description: 'Time of the last change' },
    EXPECTED_AT: { description: 'Expected time; orders without one come last' },
    NAME: { description: 'Name' },
  } as const satisfies Record<keyof typeof PURCHASE_ORDER_SORT_KEYS, { description: string }>,
});

builder.queryFields((t) => ({
  purchaseOrder: t.field({
    type: PurchaseOrder,
    nullable: true,
    description: "A purchase order of the store by id; null when absent or another store's. Requires inventory_read",
    authScopes: { scope: 'inventory_read' },
    args: { id: t.arg.id({ required: true, description: 'Purchase order id (po_)' }) },
    resolve: (_root, args, ctx, info) => ctx.reads.purchaseOrder.findFirst({ ...fieldQuery(ctx, info, 'PurchaseOrder'), where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  purchaseOrders: t.connection(
    {
      nullable: false,
      type: PurchaseOrder,
      description: 'Purchase orders of the store, newest first by default, ties by id. Requires inventory_read',
      authScopes: { scope: 'inventory_read' },
      args: {
        orderBy: t.arg({ type: PurchaseOrderSortKey, defaultValue: 'CREATED_AT', description: 'Sort key; CREATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'true sorts ascending (oldest, or A first) instead of descending' }),
        status: t.arg({ type: PurchaseOrderStatus, description: 'Only purchase orders with this status' }),
        createdAtMin: t.arg({ type: 'DateTime', description: 'Only purchase orders created at or after this time (inclusive, ISO 8601)' }),
        createdAtMax: t.arg({ type: 'DateTime', description: 'Only purchase orders created before this time (exclusive, ISO 8601)' }),
      },
      resolve: (_root, args, ctx, info) => {
        const createdAt = timeRange(args.createdAtMin, args.createdAtMax);
        const filter: Prisma.PurchaseOrderWhereInput = {
          storeId: storeIdOf(ctx),
          ...(args.status ? { status: args.status } : {}),
          ...(createdAt ? { createdAt } : {}),
        };
        return keysetConnection({
          cursors: ctx.services.cursors,
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
  description: 'One line of a new purchase order',
  fields: (t) => ({
    productId: t.id({ required: true, description: "One of the store's products (prd_)" }),
    quantity: t.int({ required: true, description: 'Units ordered, 1 to 1,000,000' }),
    unitCost: t.field({ type: 'Decimal', description: "Cost per unit in the purchase order's currency, a decimal string >= 0 with at most 4 decimals" }),
    totalTax: t.field({ type: 'Decimal', description: "Tax on the whole line in the purchase order's currency, a decimal string >= 0 with at most 4 decimals" }),
  }),
});

const PurchaseOrderCreateInput = builder.inputType('PurchaseOrderCreateInput', {
  description: 'A new purchase order',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique within the store, e.g. "PO-1001"; 1-100 characters (trimmed)' }),
    vendor: t.string({ description: 'The vendor ordered from, at most 255 characters' }),
    status: t.field({ type: PurchaseOrderStatus, description: 'DRAFT (default) or ORDERED; other statuses are refused (INVALID)' }),
    expectedAt: t.field({ type: 'DateTime', description: 'When the goods are expected (ISO 8601 with a time zone)' }),
    currency: t.string({ description: "ISO 4217 code of unitCost and totalTax; the store's currency by default" }),
    items: t.field({ type: [PurchaseOrderItemInput], required: true, description: 'The lines ordered: 1 to 500' }),
  }),
});

const PurchaseOrderPayload = payloadType('PurchaseOrderPayload', 'purchaseOrder', PurchaseOrder, {
  type: 'Result of purchaseOrderCreate',
  field: 'The purchase order as saved; null when refused',
});

builder.mutationFields((t) => ({
  purchaseOrderCreate: t.field({
    type: PurchaseOrderPayload,
    description: 'Creates a purchase order with its lines. Requires inventory_write; userErrors: INVALID (including unknown products), CONFLICT (name taken)',
    authScopes: { scope: 'inventory_write' },
    args: { input: t.arg({ type: PurchaseOrderCreateInput, required: true, description: 'The new purchase order' }) },
    resolve: (_root, { input }, ctx) =>
      withUserErrors({ ctx, input: 'input' }, () =>
        purchasing.createPurchaseOrder(ctx.prisma, storeIdOf(ctx), {
          ...input,
          items: input.items.map((item) => ({ ...item, productId: String(item.productId) })),
        }),
      ),
  }),
}));
