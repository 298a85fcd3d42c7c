// Returns: the Return node and its items, notes and history; the returns list,
// lookups (the four ways of naming a return) and ASN rows; the mutations of the
// status machine. Rules live in domain/returns.ts; REST and compat adapt these.
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { Scope } from '../auth/scopes.ts';
import type { Return as ReturnRow } from '../generated/prisma/client.ts';
import type { Plain } from '../db/reads/plain.ts';
import {
  addReturnNote,
  setReturnTags,
  createReturn,
  describeItem,
  deleteReturn,
  setReturnStatus,
  findReturnId,
  flagReturn,
  importReturns,
  ITEM_AMOUNT_SELECT,
  ITEM_DESCRIPTION_SELECT,
  ITEM_SKU_SELECT,
  itemRefund,
  itemSku,
  ITEMS_ON_RETURN,
  ASN_RETURN_SELECT,
  asnRowsOf,
  listAsnReturns,
  listAsnRows,
  listReturns,
  processReturn,
  processReturnItems,
  rejectReturn,
  removeReturnItems,
  resetReturn,
  returnItemAmounts,
  type ItemAmountSource,
  type ReturnItemAmounts,
  returnItemUnitPrice,
  returnTotal,
  type AsnRow,
  type ImportedReturnResult,
  type ReturnPage,
  type ReturnRef,
} from '../domain/returns.ts';
import { deleteReturnTag, upsertReturnTag } from '../domain/returnTags.ts';
import { builder } from './builder.ts';
import { storeIdOf, type GraphQLContext, hasAnyScope } from './context.ts';
import { keysetConnection, withCursorColumns, type KeysetSort } from './keyset.ts';
import { money, Money } from './scalars.ts';

const RETURN_AUDIENCE: readonly Scope[] = ['returns_read', 'returns_write'];

export const ReturnStatus = builder.enumType('ReturnStatus', {
  description: 'Native status of a return',
  values: {
    OPEN: { value: 'open' },
    IN_TRANSIT: { value: 'in_transit' },
    DELIVERED: { value: 'delivered' },
    NEEDS_REVIEW: { value: 'needs_review' },
    IN_REVIEW: { value: 'in_review' },
    FLAGGED: { value: 'flagged' },
    COMPLETE: { value: 'complete' },
    REJECTED: { value: 'rejected' },
    DELETED: { value: 'deleted' },
  } as const,
});

export const ReturnType = builder.enumType('ReturnType', {
  values: { RETURN: { value: 'return' }, CLAIM: { value: 'claim' }, WARRANTY: { value: 'warranty' } } as const,
});

export const ReturnOutcome = builder.enumType('ReturnOutcome', {
  description: 'What the customer gets for a returned line',
  values: {
    REFUND: { value: 'refund' },
    CREDIT: { value: 'credit', description: 'Store credit' },
    EXCHANGE: { value: 'exchange' },
    KEEP: { value: 'keep', description: 'The customer keeps the item' },
  } as const,
});

export const ReturnSortKey = builder.enumType('ReturnSortKey', {
  values: { UPDATED_AT: { value: 'updatedAt' }, CREATED_AT: { value: 'createdAt' } } as const,
});

interface MailingAddressShape {
  name: string | null;
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
}

export const MailingAddress = builder.objectRef<MailingAddressShape>('MailingAddress').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    line1: t.exposeString('line1', { nullable: true }),
    line2: t.exposeString('line2', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    state: t.exposeString('state', { nullable: true, description: 'State or province code' }),
    postalCode: t.exposeString('postalCode', { nullable: true }),
    country: t.exposeString('country', { nullable: true, description: 'ISO 3166-1 alpha-2 code' }),
  }),
});

/**
 * An item's amounts, computed once per item row a request reads: its discount, tax, amount
 * and refund fields each need all of them, and a selection of every field (a /v3/rest route)
 * asks for all four. Resolvers never change the rows they are given.
 */
const itemAmounts = new WeakMap<object, ReturnItemAmounts>();
function amountsOf(item: ItemAmountSource): ReturnItemAmounts {
  let amounts = itemAmounts.get(item);
  if (!amounts) {
    amounts = returnItemAmounts(item);
    itemAmounts.set(item, amounts);
  }
  return amounts;
}

export const ReturnItem = builder.prismaObject('ReturnItem', {
  // Select mode (builder.ts): every list of returns reads its items; what an import gave an
  // item, its position and its bookkeeping load only when asked for.
  select: { id: true, quantity: true, reason: true, reasonCode: true, customerComment: true, outcome: true },
  fields: (t) => ({
    id: t.id({ nullable: false, resolve: (item) => item.id }),
    quantity: t.int({ nullable: false, resolve: (item) => item.quantity }),
    reason: t.string({ nullable: true, resolve: (item) => item.reason }),
    reasonCode: t.string({ nullable: true, description: "The merchant's code for the reason", resolve: (item) => item.reasonCode }),
    customerComment: t.string({ nullable: true, description: "The shopper's own words about the item", resolve: (item) => item.customerComment }),
    outcome: t.field({ nullable: false, type: ReturnOutcome, resolve: (item) => item.outcome }),
    removedAt: t.expose('removedAt', { type: 'DateTime', nullable: true, description: 'Set while the item is removed from the return' }),
    orderLineItem: t.relation('orderLineItem', { nullable: true, description: 'The order line returned; null on an imported return' }),
    product: t.relation('product', { nullable: true, description: 'The product an imported item names; null on an ordered item (see orderLineItem)' }),
    title: t.string({ nullable: false, select: ITEM_DESCRIPTION_SELECT, resolve: (item) => describeItem(item).title }),
    sku: t.string({ nullable: true, select: ITEM_SKU_SELECT, resolve: itemSku }),
    variantTitle: t.exposeString('variantTitle', { nullable: true, description: 'As an import gave it' }),
    condition: t.exposeString('condition', { nullable: true, description: 'As an import gave it' }),
    unitPrice: t.field({
      type: Money,
      nullable: false,
      select: ITEM_AMOUNT_SELECT,
      resolve: (item) => {
        const { unitPrice, currency } = returnItemUnitPrice(item);
        return money(unitPrice, currency)!;
      },
    }),
    discount: t.field({
      type: Money,
      nullable: false,
      description: "The line's discount pro-rated to the returned units",
      select: ITEM_AMOUNT_SELECT,
      resolve: (item) => {
        const amounts = amountsOf(item);
        return money(amounts.discount, amounts.currency)!;
      },
    }),
    tax: t.field({
      type: Money,
      nullable: false,
      description: "The order's tax pro-rated to the returned value",
      select: ITEM_AMOUNT_SELECT,
      resolve: (item) => {
        const amounts = amountsOf(item);
        return money(amounts.tax, amounts.currency)!;
      },
    }),
    amount: t.field({
      type: Money,
      nullable: false,
      description: 'What returning these units is worth: price less discount plus tax',
      select: ITEM_AMOUNT_SELECT,
      resolve: (item) => {
        const amounts = amountsOf(item);
        return money(amounts.amount, amounts.currency)!;
      },
    }),
    refund: t.field({
      type: Money,
      nullable: false,
      description:
        'Refunded or credited for these units: the amount recorded when the return was processed, the expected amount before; ' +
        'zero for EXCHANGE and KEEP',
      select: { outcome: true, refundAmount: true, ...ITEM_AMOUNT_SELECT },
      resolve: (item) => money(itemRefund(item), amountsOf(item).currency)!,
    }),
    barcode: t.string({
      nullable: true,
      description: "The matched product's UPC, else its first barcode (an imported item's own barcode first)",
      select: ITEM_DESCRIPTION_SELECT,
      resolve: (item) => describeItem(item).barcode,
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
  }),
});

export const ReturnNote = builder.prismaObject('ReturnNote', {
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    content: t.exposeString('content', { nullable: false }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    return: t.relation('return', { nullable: false }),
  }),
});

export const ReturnStatusChange = builder.prismaObject('ReturnStatusChange', {
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    operation: t.exposeString('operation', { nullable: false, description: 'create, process, flag, reject or reset' }),
    fromStatus: t.expose('fromStatus', { type: ReturnStatus, nullable: true }),
    toStatus: t.expose('toStatus', { nullable: false, type: ReturnStatus }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
  }),
});

export const Return = builder.prismaNode('Return', {
  id: { field: 'id' },
  nullable: true,
  description: 'A return; `id` is the svc_id, `number` the compatibility id',
  // node(id:) sees only the caller's store: another store's return is simply not found.
  findUnique: (id, ctx) => ({ id, storeId: storeIdOf(ctx) }),
  authScopes: (_ret, ctx) => hasAnyScope(ctx, RETURN_AUDIENCE),
  fields: (t) => ({
    number: t.exposeInt('number', { nullable: false, description: 'Numeric id of the compatibility interface' }),
    status: t.expose('status', { nullable: false, type: ReturnStatus }),
    type: t.expose('type', { nullable: false, type: ReturnType }),
    currency: t.exposeString('currency', { nullable: false, description: 'ISO 4217 code' }),
    order: t.relation('order', { nullable: true, description: 'Null for a return imported from another system' }),
    externalReferenceId: t.exposeString('externalReferenceId', { nullable: true, description: "An imported return's own return/RMA id" }),
    customerEmail: t.exposeString('customerEmail', { nullable: true, description: "The customer an imported return names (an ordered return's is its order's)" }),
    customerFirstName: t.exposeString('customerFirstName', { nullable: true }),
    customerLastName: t.exposeString('customerLastName', { nullable: true }),
    items: t.relation('items', {
      nullable: false,
      args: { includeRemoved: t.arg.boolean({ defaultValue: false, description: 'Also list the items removed from the return' }) },
      query: (args) => (args.includeRemoved ? { orderBy: ITEMS_ON_RETURN.orderBy } : ITEMS_ON_RETURN),
    }),
    notes: t.relation('notes', { nullable: false, query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
    statusChanges: t.relation('statusChanges', { nullable: false, query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
    destination: t.field({
      type: MailingAddress,
      nullable: true,
      description: 'Address of the location receiving the return, else the address an import gave',
      select: {
        destinationAddress: true,
        destinationLocation: {
          select: { name: true, street1: true, street2: true, city: true, stateCode: true, postalCode: true, countryCode: true },
        },
      },
      resolve: ({ destinationLocation: location, destinationAddress }) => {
        if (!location) return destinationAddress ? { name: null, ...(destinationAddress as Omit<MailingAddressShape, 'name'>) } : null;
        return {
          name: location.name,
          line1: location.street1,
          line2: location.street2,
          city: location.city,
          state: location.stateCode,
          postalCode: location.postalCode,
          country: location.countryCode,
        };
      },
    }),
    carrier: t.exposeString('carrier', { nullable: true }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true }),
    labelStatus: t.exposeString('labelStatus', { nullable: true }),
    labelUrl: t.exposeString('labelUrl', { nullable: true }),
    trackingUrl: t.exposeString('trackingUrl', { nullable: true }),
    originAddress: t.field({
      type: MailingAddress,
      nullable: true,
      description: "Where the customer ships the return from, when given at creation (else the order's shipping address applies)",
      select: { originAddress: true },
      resolve: ({ originAddress }) => (originAddress ? { name: null, ...(originAddress as Omit<MailingAddressShape, 'name'>) } : null),
    }),
    tags: t.exposeStringList('tags', { nullable: false }),
    total: t.field({
      type: Money,
      nullable: false,
      description: 'Sum of the amounts of the items on the return',
      select: { currency: true, items: { ...ITEMS_ON_RETURN, select: { removedAt: true, ...ITEM_AMOUNT_SELECT } } },
      resolve: (ret) => money(returnTotal(ret.items), ret.currency)!,
    }),
    totalRefund: t.field({ type: Money, nullable: false, resolve: (ret) => money(ret.totalRefund, ret.currency)! }),
    totalStoreCredit: t.field({ type: Money, nullable: false, resolve: (ret) => money(ret.totalStoreCredit, ret.currency)! }),
    asnRows: t.field({
      type: [ReturnAsnRow],
      nullable: false,
      description: 'One row per line item still on the return, as an advance shipping notice lists it',
      select: ASN_RETURN_SELECT,
      resolve: asnRowsOf,
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

const ReturnConnection = builder.connectionObject({ type: Return, name: 'ReturnConnection' }, { name: 'ReturnEdge' });

export const ReturnAsnRow = builder.objectRef<AsnRow>('ReturnAsnRow').implement({
  description: 'One line item on a return, as an advance shipping notice lists it',
  fields: (t) => ({
    returnId: t.exposeID('returnId', { nullable: false }),
    returnNumber: t.exposeInt('returnNumber', { nullable: false }),
    returnItemId: t.exposeID('returnItemId', { nullable: false }),
    orderId: t.exposeID('orderId', { nullable: true, description: 'Null for an imported return' }),
    orderName: t.exposeString('orderName', { nullable: true }),
    status: t.expose('status', { nullable: false, type: ReturnStatus }),
    customerEmail: t.exposeString('customerEmail', { nullable: true }),
    title: t.exposeString('title', { nullable: false }),
    sku: t.exposeString('sku', { nullable: true }),
    barcode: t.exposeString('barcode', { nullable: true }),
    unitPrice: t.field({ type: Money, nullable: true, resolve: (row) => money(row.unitPrice, row.currency) }),
    currency: t.exposeString('currency', { nullable: false }),
    carrier: t.exposeString('carrier', { nullable: true }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true }),
    labelStatus: t.exposeString('labelStatus', { nullable: true }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime' }),
  }),
});

/** Plans the Return selection found at `paths` of the field being resolved. */
function returnQuery(ctx: GraphQLContext, info: GraphQLResolveInfo, paths: string[][]) {
  return queryFromInfo({ context: ctx, info, typeName: 'Return', paths });
}

function loadReturn(ctx: GraphQLContext, info: GraphQLResolveInfo, id: string, path: string[] = []) {
  return ctx.reads.return.findUniqueOrThrow({ ...returnQuery(ctx, info, [path]), where: { id } });
}

builder.queryFields((t) => ({
  returns: t.connection(
    {
      type: Return,
      nullable: false,
      description: 'Returns of the store, newest first by the sort key (ties by id)',
      authScopes: { scope: 'returns_read' },
      args: {
        status: t.arg({ type: [ReturnStatus], description: 'Only returns with one of these statuses' }),
        updatedAtMin: t.arg({ type: 'DateTime', description: 'Inclusive' }),
        updatedAtMax: t.arg({ type: 'DateTime', description: 'Exclusive' }),
        createdAtMin: t.arg({ type: 'DateTime', description: 'Inclusive' }),
        createdAtMax: t.arg({ type: 'DateTime', description: 'Exclusive' }),
        orderName: t.arg.string(),
        sortKey: t.arg({ type: ReturnSortKey, defaultValue: 'updatedAt' }),
      },
      resolve: (_root, args, ctx, info) => {
        const sort: KeysetSort = { field: args.sortKey ?? 'updatedAt', kind: 'date', direction: 'desc' };
        const query = returnQuery(ctx, info, [['edges', 'node'], ['nodes']]);
        return keysetConnection<Plain<ReturnRow>>({
          args,
          sort,
          scope: 'returns',
          fetch: (page) =>
            listReturns(ctx.reads, storeIdOf(ctx), { ...args, statuses: args.status }, page as ReturnPage, withCursorColumns(query, page.cursorColumns)),
        });
      },
    },
    ReturnConnection,
  ),
  asnReturns: t.connection(
    {
      type: Return,
      nullable: false,
      description:
        'The returns an advance shipping notice lists (created in [from, to), not deleted), oldest first, ties by number: ' +
        'returnAsnRows a page at a time, each return with its asnRows',
      authScopes: { scope: 'returns_read' },
      args: { from: t.arg({ type: 'DateTime', required: true }), to: t.arg({ type: 'DateTime', required: true }) },
      resolve: (_root, args, ctx, info) => {
        const query = returnQuery(ctx, info, [['edges', 'node'], ['nodes']]);
        return keysetConnection<Plain<ReturnRow>>({
          args,
          // listAsnRows' order: creation, then number (unique, and the order the returns were made in).
          sort: { field: 'createdAt', kind: 'date', direction: 'asc', tieBreaker: 'number' },
          scope: 'asnReturns',
          fetch: (page) =>
            listAsnReturns(ctx.reads, storeIdOf(ctx), { from: args.from, to: args.to }, page as ReturnPage, withCursorColumns(query, page.cursorColumns)),
        });
      },
    },
    ReturnConnection,
  ),
  return: t.prismaField({
    type: 'Return',
    nullable: true,
    description: 'A return of the store by its svc_id; null when absent',
    authScopes: { scope: 'returns_read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.reads.return.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  findReturn: t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      'The return named by any of: svc_id, compatibility number, order name or order id (an order\'s newest return). ' +
      'Criteria given together must name the same return.',
    authScopes: { scope: 'returns_read' },
    args: returnRefArgs(t),
    resolve: async (query, _root, args, ctx) => {
      const id = await findReturnId(ctx.prisma, storeIdOf(ctx), refOf(args));
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  returnAsnRows: t.field({
    type: [ReturnAsnRow],
    nullable: false,
    description: 'One row per line item on the returns created in [from, to), oldest first',
    authScopes: { scope: 'returns_read' },
    args: { from: t.arg({ type: 'DateTime', required: true }), to: t.arg({ type: 'DateTime', required: true }) },
    resolve: (_root, args, ctx) => listAsnRows(ctx.reads, storeIdOf(ctx), { from: args.from, to: args.to }),
  }),
}));

// ---------------------------------------------------------------- mutations

type ArgBuilder = Parameters<Parameters<typeof builder.mutationFields>[0]>[0]['arg'];

function returnRefArgs(t: { arg: ArgBuilder }) {
  return {
    id: t.arg.id({ description: 'svc_id of the return' }),
    number: t.arg.int({ description: 'Numeric id of the compatibility interface' }),
    orderName: t.arg.string({ description: "Order name; the order's newest return" }),
    orderId: t.arg.id({ description: "Order id (ord_); the order's newest return" }),
  };
}

function refOf(args: { id?: string | number | null; number?: number | null; orderName?: string | null; orderId?: string | number | null }): ReturnRef {
  return {
    id: args.id == null ? null : String(args.id),
    number: args.number,
    orderName: args.orderName,
    orderId: args.orderId == null ? null : String(args.orderId),
  };
}

const CreateReturnItemInput = builder.inputType('CreateReturnItemInput', {
  fields: (t) => ({
    lineItemId: t.string({ required: true, description: "Our order line id (oli_) or the merchant's line item id" }),
    quantity: t.int({ required: true }),
    reason: t.string(),
    reasonCode: t.string({ description: "The merchant's code for the reason" }),
    customerComment: t.string({ description: "The shopper's own words about the item" }),
    outcome: t.field({ type: ReturnOutcome, description: 'Default REFUND' }),
  }),
});

const ReturnAddressInput = builder.inputType('ReturnAddressInput', {
  fields: (t) => ({
    line1: t.string({ required: true }),
    line2: t.string(),
    city: t.string({ required: true }),
    state: t.string({ required: true }),
    postalCode: t.string({ required: true }),
    country: t.string({ required: true }),
  }),
});

const ReturnLabelInput = builder.inputType('ReturnLabelInput', {
  fields: (t) => ({
    trackingNumber: t.string({ required: true }),
    carrier: t.string(),
    trackingUrl: t.string(),
    postageLabelUrl: t.string(),
  }),
});

const CreateReturnInput = builder.inputType('CreateReturnInput', {
  fields: (t) => ({
    orderId: t.id({ description: 'Our order id (ord_); give this or externalOrderId' }),
    externalOrderId: t.string({ description: "The merchant's order id; give this or orderId" }),
    items: t.field({ type: [CreateReturnItemInput], required: true }),
    type: t.field({ type: ReturnType, description: 'Default RETURN' }),
    originAddress: t.field({ type: ReturnAddressInput, description: 'Where the customer ships the return from' }),
    label: t.field({ type: ReturnLabelInput, description: 'A label already bought for the return' }),
    notes: t.string({ description: "The return's first note" }),
  }),
});

const ProcessReturnItemInput = builder.inputType('ProcessReturnItemInput', {
  fields: (t) => ({
    itemId: t.id({ required: true, description: 'ReturnItem id' }),
    reject: t.boolean({ description: 'Default false' }),
  }),
});

export const SettableReturnStatus = builder.enumType('SettableReturnStatus', {
  description: 'Statuses setReturnStatus takes; each runs the operation leading there',
  values: {
    COMPLETE: { value: 'complete', description: 'processReturn' },
    OPEN: { value: 'open', description: 'resetReturn' },
    FLAGGED: { value: 'flagged', description: 'flagReturn' },
    REJECTED: { value: 'rejected', description: 'rejectReturn' },
    DELETED: { value: 'deleted', description: 'deleteReturn' },
  } as const,
});

const CreateReturnPayload = builder.objectRef<{ return: Plain<ReturnRow>; replayed: boolean }>('CreateReturnPayload').implement({
  fields: (t) => ({
    return: t.field({ type: Return, nullable: false, resolve: (payload) => payload.return }),
    replayed: t.exposeBoolean('replayed', { nullable: false, description: 'True when the idempotency key replayed an earlier creation' }),
  }),
});

type Transition = (db: GraphQLContext['prisma'], storeId: string, ref: ReturnRef) => Promise<string>;

function transitionField(t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0], transition: Transition, description: string) {
  return t.prismaField({
    type: 'Return',
    nullable: false,
    description,
    authScopes: { scope: 'returns_write' },
    args: returnRefArgs(t),
    resolve: async (query, _root, args, ctx) => {
      const id = await transition(ctx.prisma, storeIdOf(ctx), refOf(args));
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  });
}

builder.mutationFields((t) => ({
  createReturn: t.field({
    type: CreateReturnPayload,
    nullable: false,
    description: 'Creates a return for some of an order\'s lines. With an idempotency key a repeat of the same request replays it.',
    authScopes: { scope: 'returns_write' },
    args: {
      input: t.arg({ type: CreateReturnInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      const { input } = args;
      const created = await createReturn(
        ctx.prisma,
        storeIdOf(ctx),
        {
          orderId: input.orderId == null ? null : String(input.orderId),
          externalOrderId: input.externalOrderId,
          originAddress: input.originAddress,
          label: input.label,
          notes: input.notes,
          type: input.type,
          items: input.items,
        },
        args.idempotencyKey,
      );
      return { return: await loadReturn(ctx, info, created.id, ['return']), replayed: created.replayed };
    },
  }),
  processReturn: transitionField(t, processReturn, 'Completes the return, recording refunds and store credit'),
  flagReturn: transitionField(t, flagReturn, 'Flags the return for review'),
  rejectReturn: transitionField(t, rejectReturn, 'Rejects the return; its items are released'),
  resetReturn: transitionField(t, resetReturn, 'Back to OPEN with the items the return was created with, nothing refunded'),
  processReturnItems: t.prismaField({
    type: 'Return',
    nullable: false,
    description: 'Processes item by item: rejected items leave the return, the others complete with their refunds; rejecting all rejects the return',
    authScopes: { scope: 'returns_write' },
    args: { ...returnRefArgs(t), items: t.arg({ type: [ProcessReturnItemInput], required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const decisions = args.items.map((item) => ({ itemId: String(item.itemId), reject: item.reject ?? false }));
      const id = await processReturnItems(ctx.prisma, storeIdOf(ctx), refOf(args), decisions);
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteReturn: transitionField(t, deleteReturn, 'Deletes the return: no further operation, its items are released'),
  setReturnStatus: t.prismaField({
    type: 'Return',
    nullable: false,
    description: 'Sets a status by running the operation leading to it (the same state machine as the other mutations)',
    authScopes: { scope: 'returns_write' },
    args: { ...returnRefArgs(t), status: t.arg({ type: SettableReturnStatus, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await setReturnStatus(ctx.prisma, storeIdOf(ctx), refOf(args), args.status);
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  removeReturnItems: t.prismaField({
    type: 'Return',
    nullable: false,
    description: 'Removes items (refund or credit outcomes only) from the return; the last remaining item stays',
    authScopes: { scope: 'returns_write' },
    args: { ...returnRefArgs(t), lineItemIds: t.arg.idList({ required: true, description: 'ReturnItem ids' }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await removeReturnItems(ctx.prisma, storeIdOf(ctx), refOf(args), args.lineItemIds.map(String));
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  addReturnNote: t.prismaField({
    type: 'ReturnNote',
    nullable: false,
    description: 'Adds a note (1 to 255 characters) to the return',
    authScopes: { scope: 'returns_write' },
    args: { ...returnRefArgs(t), content: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const { noteId } = await addReturnNote(ctx.prisma, storeIdOf(ctx), refOf(args), args.content);
      return ctx.reads.returnNote.findUniqueOrThrow({ ...query, where: { id: noteId } });
    },
  }),
}));

builder.mutationFields((t) => ({
  setReturnTags: t.prismaField({
    type: 'Return',
    nullable: false,
    description: 'Replaces the tags of the return; each must be a return tag the store defines',
    authScopes: { scope: 'returns_write' },
    args: { ...returnRefArgs(t), tags: t.arg.stringList({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await setReturnTags(ctx.prisma, storeIdOf(ctx), refOf(args), args.tags);
      return ctx.reads.return.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
}));

// ---------------------------------------------------------------- imported returns

const ImportedReturnItemInput = builder.inputType('ImportedReturnItemInput', {
  fields: (t) => ({
    productId: t.id({ required: true, description: 'Our product id (prd_), as bulkUpsertProductFamilies answers it' }),
    quantity: t.int({ required: true }),
    sku: t.string({ description: "The product's SKU when omitted" }),
    barcode: t.string({ description: "The product's UPC or first barcode when omitted" }),
    productTitle: t.string({ description: "The product's title when omitted" }),
    variantTitle: t.string(),
    reason: t.string(),
    condition: t.string(),
  }),
});

const ImportedReturnAddressInput = builder.inputType('ImportedReturnAddressInput', {
  fields: (t) => ({
    name: t.string(),
    line1: t.string({ required: true }),
    line2: t.string(),
    city: t.string({ required: true }),
    state: t.string(),
    postalCode: t.string(),
    country: t.string({ required: true, description: 'ISO 3166-1 alpha-2' }),
    phone: t.string(),
  }),
});

const ImportedReturnCustomerInput = builder.inputType('ImportedReturnCustomerInput', {
  fields: (t) => ({ firstName: t.string(), lastName: t.string(), email: t.string() }),
});

const ImportReturnInput = builder.inputType('ImportReturnInput', {
  fields: (t) => ({
    items: t.field({ type: [ImportedReturnItemInput], required: true, description: 'At least one' }),
    customer: t.field({ type: ImportedReturnCustomerInput }),
    externalReferenceId: t.string({ description: "The merchant's own return/RMA id" }),
    trackingNumber: t.string(),
    carrier: t.string(),
    notes: t.string({ description: "The return's first note" }),
    idempotencyKey: t.string({ description: 'A retry with the same key answers the return already made' }),
    currency: t.string({ description: 'ISO 4217; USD when omitted' }),
    shippingAddress: t.field({ type: ImportedReturnAddressInput, description: 'Where the customer ships the return from' }),
    merchantAddress: t.field({ type: ImportedReturnAddressInput, description: "Where the return goes; the store's default location when omitted" }),
  }),
});

const ImportedReturnResult = builder.objectRef<ImportedReturnResult>('ImportedReturnResult').implement({
  description: 'What became of one imported return, in the request order',
  fields: (t) => ({
    returnId: t.id({ nullable: true, resolve: (r) => (r.status === 'created' ? r.returnId : null) }),
    replayed: t.boolean({ nullable: false, description: 'True when the idempotency key answered an earlier import', resolve: (r) => r.status === 'created' && r.replayed }),
    error: t.string({ nullable: true, resolve: (r) => (r.status === 'error' ? r.error : null) }),
  }),
});

builder.mutationField('importReturns', (t) =>
  t.field({
    type: [ImportedReturnResult],
    nullable: false,
    description:
      'Imports up to 100 returns created outside (no order; items name products), each in its own transaction with its own result; ' +
      'each emits return.created',
    authScopes: { scope: 'returns_write' },
    args: { returns: t.arg({ type: [ImportReturnInput], required: true }) },
    resolve: (_root, args, ctx) =>
      importReturns(
        ctx.prisma,
        storeIdOf(ctx),
        args.returns.map((input) => ({ ...input, items: input.items.map((item) => ({ ...item, productId: String(item.productId) })) })),
      ),
  }),
);

// ---------------------------------------------------------------- return tags

export const ReturnTag = builder.prismaObject('ReturnTag', {
  description: 'A return tag the store defines; returns name it in `tags`',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: false }),
    pillTheme: t.exposeString('pillTheme', { nullable: false, description: 'One of the reference pill themes (NORMAL, PRIMARY, SUCCESS ...)' }),
    source: t.exposeString('source', { nullable: false, description: 'merchant: made through the API' }),
    numericId: t.exposeInt('numericId', { nullable: false }),
  }),
});

builder.queryFields((t) => ({
  returnTags: t.prismaField({
    type: ['ReturnTag'],
    nullable: false,
    description: 'Every return tag of the store, by name',
    authScopes: { scope: 'returns_read' },
    resolve: (query, _root, _args, ctx) => ctx.reads.returnTag.findMany({ ...query, where: { storeId: storeIdOf(ctx) }, orderBy: { name: 'asc' } }),
  }),
}));

builder.mutationFields((t) => ({
  upsertReturnTag: t.prismaField({
    type: 'ReturnTag',
    nullable: false,
    description: 'Creates a tag, changes its theme, or renames it (newName); a rename rewrites every return naming the tag',
    authScopes: { scope: 'returns_write' },
    args: { name: t.arg.string({ required: true }), pillTheme: t.arg.string({ required: true }), newName: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const tag = await upsertReturnTag(ctx.prisma, storeIdOf(ctx), args);
      return ctx.reads.returnTag.findUniqueOrThrow({ ...query, where: { storeId_name: { storeId: tag.storeId, name: tag.name } } });
    },
  }),
  deleteReturnTag: t.boolean({
    nullable: false,
    description: 'Deletes the tag and strips it from every return naming it',
    authScopes: { scope: 'returns_write' },
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteReturnTag(ctx.prisma, storeIdOf(ctx), args.name);
      return true;
    },
  }),
}));
