// Returns in v3: the Return node and its items, notes and history, the returns list, the
// lookups (the four ways of naming a return) and ASN rows. Rules live in domain/returns/;
// REST and compat adapt these; the mutations are returnMutations.ts.
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { Scope } from '../auth/scopes.ts';
import type { Return as ReturnRow, ReturnOutcome as ReturnOutcomeValue, ReturnStatus as ReturnStatusValue } from '../generated/prisma/client.ts';
import type { Plain } from '../db/reads/plain.ts';
import { ITEM_AMOUNT_SELECT, previewProcessing, type ProcessingAmounts, returnItemAmounts, type ItemAmountSource, type ReturnItemAmounts, returnItemUnitPrice, returnTotals, type ReturnTotals, itemRefundSplit, type RefundSplit } from '../domain/returns/amounts.ts';
import { describeItem, ITEM_DESCRIPTION_SELECT, ITEM_SKU_SELECT, itemSku, ITEMS_ON_RETURN, ASN_RETURN_SELECT, asnRowsOf, listAsnReturns, listAsnRows, type AsnRow } from '../domain/returns/asn.ts';
import { ITEM_LOOK_SELECT, itemImageUrl, itemVariantTitle, editedAtOf, CLOSED_AT_SELECT, STATUS_HISTORY, closedAtOf, restockStatusOf, orderNumberOf, ORIGIN_COUNTRY_SELECT, originCountryOf } from '../domain/returns/facts.ts';
import { PLANNED_READ } from './planned.ts';
import { listReturns, countReturnsByStatus, type ReturnPage } from '../domain/returns/lists.ts';
import { findReturnId, type ReturnRef } from '../domain/returns/locking.ts';
import { allowedOperations, canApply, type ReturnOperation } from '../domain/returns/status.ts';
import { searchHelp } from '../domain/search/kinds.ts';
import { builder } from './builder.ts';
import { storeIdOf, type GraphQLContext, hasAnyScope } from './context.ts';
import { keysetConnection, withCursorColumns, type KeysetSort } from './keyset.ts';
import { money, Money } from './scalars.ts';

const RETURN_AUDIENCE: readonly Scope[] = ['returns_read', 'returns_write'];

export const ReturnStatus = builder.enumType('ReturnStatus', {
  description:
    'Native status of a return. New returns are OPEN; process leads to COMPLETE, flag to FLAGGED, reject to REJECTED, ' +
    'reset back to OPEN and delete to DELETED, and an operation the current status does not allow fails with UNPROCESSABLE.',
  values: {
    OPEN: {
      value: 'open',
      description: 'Approved and awaiting shipment (compatibility state `open`); every new return starts here and a reset leads back here',
    },
    IN_TRANSIT: {
      value: 'in_transit',
      description: 'The return shipment is in transit (compatibility state `open`); no operation of this API sets it, and it allows what OPEN allows',
    },
    DELIVERED: {
      value: 'delivered',
      description: 'The return shipment arrived and awaits processing (compatibility state `open`); no operation of this API sets it',
    },
    NEEDS_REVIEW: {
      value: 'needs_review',
      description: 'The return needs a review before further action (compatibility state `review`); no operation of this API sets it',
    },
    IN_REVIEW: {
      value: 'in_review',
      description: 'The return is being reviewed (compatibility state `review`); no operation of this API sets it',
    },
    FLAGGED: {
      value: 'flagged',
      description: "Flagged for review (returnFlag): a problem needs the merchant's action (compatibility state `review`); every operation but flag still applies",
    },
    COMPLETE: {
      value: 'complete',
      description: 'Processed, refunds and store credit recorded (compatibility state `closed`); final: only reset, delete, notes and tags apply',
    },
    REJECTED: {
      value: 'rejected',
      description: 'Rejected (the compatibility close), its units released for other returns (compatibility state `cancelled`); final: only reset, delete, notes and tags apply',
    },
    DELETED: {
      value: 'deleted',
      description: 'Deleted: no operation but setting tags applies any more, its units are released and advance shipping notices leave it out',
    },
  } as const,
});

export const ReturnType = builder.enumType('ReturnType', {
  description: 'Kind of return, chosen at creation (default RETURN); recorded and reported, it does not change how the return is handled',
  values: {
    RETURN: { value: 'return', description: 'The customer sends items back for a refund, store credit or an exchange' },
    CLAIM: { value: 'claim', description: 'A claim about a problem with the order, such as a damaged or missing item' },
    WARRANTY: { value: 'warranty', description: 'A warranty claim on an item' },
  } as const,
});

export const ReturnOutcome = builder.enumType('ReturnOutcome', {
  description: 'What the customer gets for a returned line; only REFUND and CREDIT lines are paid out when the return is processed',
  values: {
    REFUND: { value: 'refund', description: "Money back: the line's amount counts in Return.totalRefund when the return is processed (the default)" },
    CREDIT: { value: 'credit', description: "Store credit: the line's amount counts in Return.totalStoreCredit when the return is processed" },
    EXCHANGE: { value: 'exchange', description: 'Exchanged for another item: nothing refunded, and the line cannot be removed from the return' },
    KEEP: { value: 'keep', description: 'The customer keeps the item: nothing refunded, and the line cannot be removed from the return' },
  } as const,
});

export const ReturnSortKey = builder.enumType('ReturnSortKey', {
  description: 'Order of the returns list: newest first by the key (oldest first with reverse: true), ties broken by id in the same direction',
  values: {
    UPDATED_AT: { value: 'updatedAt', description: 'By the time of the last change (the default)' },
    CREATED_AT: { value: 'createdAt', description: 'By creation time: reverse: true lists the oldest (longest waiting) first' },
    TOTAL: { value: 'total', description: 'By Return.total, largest first: reverse: true lists the smallest first' },
  } as const,
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
  description: "A postal address on a return: where it is shipped from or to; each part is null when the address lacks it",
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: "The receiving location's name, or the name an imported address gave; null otherwise" }),
    line1: t.exposeString('line1', { nullable: true, description: 'First street line' }),
    line2: t.exposeString('line2', { nullable: true, description: 'Second street line (apartment, suite ...)' }),
    city: t.exposeString('city', { nullable: true, description: 'City or town' }),
    state: t.exposeString('state', { nullable: true, description: "State or province (a location's state code)" }),
    postalCode: t.exposeString('postalCode', { nullable: true, description: 'Postal or ZIP code' }),
    country: t.exposeString('country', {
      nullable: true,
      description: 'ISO 3166-1 alpha-2 code for a location or an imported address; an origin address given to returnCreate holds the text the caller sent',
    }),
  }),
});

/**
 * `compute` of a row once per row a request reads, however many of its fields need it. The
 * value rides on the row under a symbol of its own, not enumerable, so JSON, the row's keys and
 * a copy of the row (spread, Object.assign) leave it behind; resolvers never change a row's
 * fields, so the value stays the row's. A WeakMap (an entry per item per request, held until a
 * collection and weighed again by it) was ~3.5% of the warehouse list's CPU.
 */
function perRow<Row extends object, T>(compute: (row: Row) => T): (row: Row) => T {
  const held = Symbol('perRow');
  return (row) => {
    const memo = (row as Row & { [held]?: T })[held];
    if (memo !== undefined) return memo;
    const value = compute(row);
    Object.defineProperty(row, held, { value });
    return value;
  };
}

/**
 * An item's amounts: its discount, tax, amount and refund fields each need all of them, and a
 * selection of every field (a /v3/rest route) asks for all four.
 */
const amountsOf = perRow<ItemAmountSource, ReturnItemAmounts>(returnItemAmounts);

const REFUND_SELECT = { outcome: true, refundAmount: true, ...ITEM_AMOUNT_SELECT } as const;
type RefundSource = Parameters<typeof itemRefundSplit>[0];

/** An item's refund split: the compat door selects refund, its tax and its item part together. */
const refundSplitOf = perRow<RefundSource, RefundSplit>((item) => itemRefundSplit(item, amountsOf(item)));

/** What a return's totals read; usable as a Prisma `select` on Return. */
const TOTALS_SELECT = { currency: true, items: { ...ITEMS_ON_RETURN, select: { removedAt: true, ...ITEM_AMOUNT_SELECT } } } as const;

/** A return's totals (its four total fields each need them), from its items' amounts as their own fields have them. */
const totalsOf = perRow<{ items: Parameters<typeof returnTotals>[0] }, ReturnTotals>((ret) => returnTotals(ret.items, amountsOf));

export const ReturnItem = builder.prismaObject('ReturnItem', {
  // Select mode (builder.ts): every list of returns reads its items; what an import gave an
  // item, its position and its bookkeeping load only when asked for.
  select: { id: true, quantity: true, reason: true, reasonCode: true, customerComment: true, outcome: true },
  description: "Units of one order line (or, on an imported return, of one product) on a return, with what returning them is worth",
  fields: (t) => ({
    id: t.id({ nullable: false, description: 'Our return item id (rli_), as returnItemsProcess and returnItemsRemove name it', resolve: (item) => item.id }),
    quantity: t.int({ nullable: false, description: 'Units returned, at least 1', resolve: (item) => item.quantity }),
    reason: t.string({ nullable: true, description: "The customer's reason for returning, up to 255 characters", resolve: (item) => item.reason }),
    reasonCode: t.string({ nullable: true, description: "The merchant's code for the reason", resolve: (item) => item.reasonCode }),
    customerComment: t.string({ nullable: true, description: "The shopper's own words about the item", resolve: (item) => item.customerComment }),
    outcome: t.field({ nullable: false, type: ReturnOutcome, description: 'What the customer gets for these units (REFUND unless chosen at creation)', resolve: (item) => item.outcome }),
    removedAt: t.expose('removedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the item was taken off the return (returnItemsRemove, or rejected by returnItemsProcess); null while it is on it, and a reset clears it',
    }),
    orderLineItem: t.relation('orderLineItem', { nullable: true, description: 'The order line returned; null on an imported return' }),
    product: t.relation('product', { nullable: true, description: 'The product an imported item names; null on an ordered item (see orderLineItem)' }),
    title: t.string({
      nullable: false,
      description: "The order line's title; an imported item's title (its product's unless the import gave one)",
      select: ITEM_DESCRIPTION_SELECT,
      resolve: (item) => describeItem(item).title,
    }),
    sku: t.string({
      nullable: true,
      description: "The order line's SKU; an imported item's SKU (its product's unless the import gave one); null when there is none",
      select: ITEM_SKU_SELECT,
      resolve: itemSku,
    }),
    variantTitle: t.string({
      nullable: true,
      description: "The variant: the matched product's option values (\"Small / Navy\"), or what an import gave; null when neither is known",
      select: ITEM_LOOK_SELECT,
      resolve: itemVariantTitle,
    }),
    imageUrl: t.string({
      nullable: true,
      description: "The order line's image URL as submitted, else the first image of the item's product; null when there is none",
      select: ITEM_LOOK_SELECT,
      resolve: itemImageUrl,
    }),
    condition: t.exposeString('condition', { nullable: true, description: 'As an import gave it' }),
    unitPrice: t.field({
      type: Money,
      nullable: false,
      description: "Price of one unit as ordered, in the return's currency (an imported item: its product's price at import); zero when unknown",
      select: ITEM_AMOUNT_SELECT,
      resolve: (item) => {
        const { unitPrice, currency } = returnItemUnitPrice(item);
        return money(unitPrice, currency)!;
      },
    }),
    discount: t.field({
      type: Money,
      nullable: false,
      description: "The line's discount pro-rated to the returned units; zero on an imported item",
      select: ITEM_AMOUNT_SELECT,
      resolve: (item) => {
        const amounts = amountsOf(item);
        return money(amounts.discount, amounts.currency)!;
      },
    }),
    tax: t.field({
      type: Money,
      nullable: false,
      description: "The order's tax pro-rated by the returned value's share of the order subtotal; zero on an imported item",
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
      select: REFUND_SELECT,
      resolve: (item) => money(refundSplitOf(item).refund, amountsOf(item).currency)!,
    }),
    refundTax: t.field({
      type: Money,
      nullable: false,
      description: "The tax part of refund: the item's tax in the share refund pays of its amount (all of it for a full refund)",
      select: REFUND_SELECT,
      resolve: (item) => money(refundSplitOf(item).tax, amountsOf(item).currency)!,
    }),
    refundItem: t.field({
      type: Money,
      nullable: false,
      description: 'The item part of refund: refund less refundTax',
      select: REFUND_SELECT,
      resolve: (item) => money(refundSplitOf(item).item, amountsOf(item).currency)!,
    }),
    barcode: t.string({
      nullable: true,
      description: "The matched product's UPC, else its first barcode (an imported item's own barcode first)",
      select: ITEM_DESCRIPTION_SELECT,
      resolve: (item) => describeItem(item).barcode,
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the item was put on the return' }),
  }),
});

export const ReturnNote = builder.prismaObject('ReturnNote', {
  description: 'A note kept on a return: its first one given at creation, later ones added by returnNoteAdd or the compatibility note action',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Our note id (rnt_)' }),
    content: t.exposeString('content', { nullable: false, description: 'The text of the note, 1 to 255 characters' }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the note was added' }),
    return: t.relation('return', { nullable: false, description: 'The return the note is on' }),
  }),
});

export const ReturnStatusChange = builder.prismaObject('ReturnStatusChange', {
  description: "One step of a return's status history, recorded by every operation that sets a status",
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Our status change id (rsc_)' }),
    operation: t.exposeString('operation', { nullable: false, description: 'What made the change: create, process, flag, reject, reset or delete' }),
    fromStatus: t.expose('fromStatus', { type: ReturnStatus, nullable: true, description: 'Status before the change; null for the creation' }),
    toStatus: t.expose('toStatus', { nullable: false, type: ReturnStatus, description: 'Status after the change' }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the change happened' }),
  }),
});

export const ReturnAction = builder.enumType('ReturnAction', {
  description: "An operation on a return; Return.allowedActions lists those its status allows (ReturnStatus's state machine)",
  values: {
    PROCESS: { value: 'process', description: 'returnProcess or returnItemsProcess' },
    FLAG: { value: 'flag', description: 'returnFlag' },
    REJECT: { value: 'reject', description: 'returnReject' },
    RESET: { value: 'reset', description: 'returnReset' },
    DELETE: { value: 'delete', description: 'returnDelete' },
    REMOVE_ITEMS: { value: 'remove', description: 'returnItemsRemove' },
    NOTE: { value: 'note', description: 'returnNoteAdd (and returnLabelSet)' },
  } as const satisfies Record<string, { value: ReturnOperation; description: string }>,
});

const ReturnProcessingPreviewItem = builder.objectRef<ProcessingAmounts['items'][number] & { currency: string }>('ReturnProcessingPreviewItem').implement({
  description: 'What processing would record for one item still on the return',
  fields: (t) => ({
    itemId: t.exposeID('itemId', { nullable: false, description: 'The ReturnItem (rli_)' }),
    outcome: t.field({ type: ReturnOutcome, nullable: false, description: 'What the customer gets for the units', resolve: (row) => row.outcome }),
    rejected: t.exposeBoolean('rejected', { nullable: false, description: 'True when the preview takes the item off the return' }),
    amount: t.field({
      type: Money,
      nullable: false,
      description: 'Refunded (REFUND) or credited (CREDIT) for the item; zero for EXCHANGE, KEEP and a rejected item',
      resolve: (row) => money(row.amount, row.currency)!,
    }),
  }),
});

const ReturnProcessingPreview = builder.objectRef<ProcessingAmounts & { currency: string }>('ReturnProcessingPreview').implement({
  description: 'What processing the return would record now: the same computation returnProcess and returnItemsProcess run, nothing written',
  fields: (t) => ({
    refund: t.field({ type: Money, nullable: false, description: 'The total refund processing would record', resolve: (p) => money(p.refund, p.currency)! }),
    storeCredit: t.field({ type: Money, nullable: false, description: 'The total store credit processing would record', resolve: (p) => money(p.storeCredit, p.currency)! }),
    rejectsReturn: t.exposeBoolean('rejectsReturn', { nullable: false, description: 'Every item rejected: processing would reject the return, recording nothing' }),
    items: t.field({
      type: [ReturnProcessingPreviewItem],
      nullable: false,
      description: 'Every item still on the return',
      resolve: (p) => p.items.map((item) => ({ ...item, currency: p.currency })),
    }),
  }),
});

export const Return = builder.prismaNode('Return', {
  id: { field: 'id', description: 'The svc_id: 24 hex digits, object-id style; the REST id, and what node(id:) and return(id:) take' },
  nullable: true,
  description:
    "A return of some of an order's units (or an imported return without an order); `id` is the svc_id, `number` the compatibility id. " +
    'Readable with returns_read or returns_write; another store\'s return is never found.',
  // node(id:) sees only the caller's store: another store's return is simply not found.
  findUnique: (id, ctx) => ({ id, storeId: storeIdOf(ctx) }),
  authScopes: (_ret, ctx) => hasAnyScope(ctx, RETURN_AUDIENCE),
  fields: (t) => ({
    number: t.exposeInt('number', { nullable: false, description: 'Numeric id of the compatibility interface' }),
    status: t.expose('status', { nullable: false, type: ReturnStatus, description: 'Current native status; ReturnStatus describes the state machine' }),
    type: t.expose('type', { nullable: false, type: ReturnType, description: 'Kind of return given at creation (RETURN by default)' }),
    currency: t.exposeString('currency', {
      nullable: false,
      description: "ISO 4217 code of every amount on the return: the order's currency, or an imported return's own (USD by default)",
    }),
    order: t.relation('order', { nullable: true, description: 'Null for a return imported from another system' }),
    externalReferenceId: t.exposeString('externalReferenceId', { nullable: true, description: "An imported return's own return/RMA id" }),
    customerEmail: t.exposeString('customerEmail', { nullable: true, description: "The customer an imported return names (an ordered return's is its order's)" }),
    customerFirstName: t.exposeString('customerFirstName', { nullable: true, description: "First name of an imported return's customer; null on an ordered return" }),
    customerLastName: t.exposeString('customerLastName', { nullable: true, description: "Last name of an imported return's customer; null on an ordered return" }),
    items: t.relation('items', {
      nullable: false,
      description: "The items on the return, in the order of their order lines (an imported return's in import order)",
      args: { includeRemoved: t.arg.boolean({ defaultValue: false, description: 'Also list the items removed from the return' }) },
      query: (args) => (args.includeRemoved ? { orderBy: ITEMS_ON_RETURN.orderBy } : ITEMS_ON_RETURN),
    }),
    notes: t.relation('notes', { nullable: false, description: 'Every note on the return, oldest first', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
    statusChanges: t.relation('statusChanges', {
      nullable: false,
      description: "The return's status history from its creation on, oldest first",
      query: STATUS_HISTORY,
    }),
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
    carrier: t.exposeString('carrier', { nullable: true, description: "Carrier of the return shipment, from the creation's label, the import or returnLabelSet; null when none was given" }),
    trackingNumber: t.exposeString('trackingNumber', {
      nullable: true,
      description: "Tracking number of the return shipment, from the creation's label, the import or returnLabelSet; null when none was given",
    }),
    labelStatus: t.exposeString('labelStatus', {
      nullable: true,
      description: "Status of the return's shipping label as the carrier reports it (free text, e.g. in_transit), set by returnLabelSet; null until one is set",
    }),
    labelUrl: t.exposeString('labelUrl', { nullable: true, description: "URL of the postage label (the creation label's postageLabelUrl); null when none was given" }),
    trackingUrl: t.exposeString('trackingUrl', { nullable: true, description: "The carrier's tracking page (the creation label's trackingUrl); null when none was given" }),
    originAddress: t.field({
      type: MailingAddress,
      nullable: true,
      description:
        "Where the customer ships the return from, as given at creation (originAddress) or import (shippingAddress); null when none was given (the order's shipping address then applies)",
      select: { originAddress: true },
      resolve: ({ originAddress }) => (originAddress ? { name: null, ...(originAddress as Omit<MailingAddressShape, 'name'>) } : null),
    }),
    tags: t.exposeStringList('tags', { nullable: false, description: 'Names of return tags the store defines (see returnTags), as returnTagsSet set them; a tag rename or deletion rewrites them; empty when none' }),
    total: t.field({
      type: Money,
      nullable: false,
      description: 'Sum of the amounts of the items on the return: productTotal less discountTotal plus taxTotal',
      select: TOTALS_SELECT,
      resolve: (ret) => money(totalsOf(ret).total, ret.currency)!,
    }),
    productTotal: t.field({
      type: Money,
      nullable: false,
      description: 'Sum of the items on the return at their unit price times their quantity, before discounts and tax',
      select: TOTALS_SELECT,
      resolve: (ret) => money(totalsOf(ret).product, ret.currency)!,
    }),
    discountTotal: t.field({
      type: Money,
      nullable: false,
      description: "Sum of the items' discounts (each line's discount pro-rated to the returned units)",
      select: TOTALS_SELECT,
      resolve: (ret) => money(totalsOf(ret).discount, ret.currency)!,
    }),
    taxTotal: t.field({
      type: Money,
      nullable: false,
      description: "Sum of the items' tax (the order's tax pro-rated by each item's share of the order subtotal)",
      select: TOTALS_SELECT,
      resolve: (ret) => money(totalsOf(ret).tax, ret.currency)!,
    }),
    editedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the return last changed after its creation (updatedAt); null while it is as it was created',
      select: { createdAt: true, updatedAt: true },
      resolve: editedAtOf,
    }),
    closedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the return was processed (its latest change to COMPLETE, from statusChanges); null unless it is COMPLETE',
      select: CLOSED_AT_SELECT,
      resolve: closedAtOf,
    }),
    orderNumber: t.string({
      nullable: true,
      description: 'The number in its order\'s name ("#1001" gives "1001"); null for an imported return or a name without digits',
      select: { order: { select: { name: true } } },
      resolve: (ret) => (ret.order ? orderNumberOf(ret.order.name) : null),
    }),
    originCountryCode: t.string({
      nullable: true,
      description:
        "ISO 3166-1 alpha-2 code of the country the return ships from (originAddress, else the order's shipping address); " +
        'null when unknown or given as a name',
      select: ORIGIN_COUNTRY_SELECT,
      resolve: (ret) => originCountryOf(ret).code,
    }),
    originCountry: t.string({
      nullable: true,
      description: 'English name of the country the return ships from (the name given, when it was given as text); null when unknown',
      select: ORIGIN_COUNTRY_SELECT,
      resolve: (ret) => originCountryOf(ret).name,
    }),
    multiCurrency: t.boolean({
      nullable: false,
      description: "True when the return's currency (its order's) differs from the store's currency",
      select: { currency: true, store: { select: { currency: true } } },
      resolve: (ret) => ret.currency !== ret.store.currency,
    }),
    receivingLocationId: t.id({
      nullable: true,
      description: 'Our id (loc_) of the location receiving the return, where its units would be restocked; null when an import named an address instead',
      select: { destinationLocationId: true },
      resolve: (ret) => ret.destinationLocationId,
    }),
    restockStatus: t.string({
      nullable: true,
      description:
        'Whether the returned units go back to stock at the receiving location: pending while the return is handled, not_restocked once ' +
        'it is final (processing records refunds but changes no inventory level); null without a receiving location',
      select: { status: true, destinationLocationId: true },
      resolve: restockStatusOf,
    }),
    totalRefund: t.field({
      type: Money,
      nullable: false,
      description: 'Refunded when the return was processed: the sum of its REFUND items; zero before processing and after a reset',
      resolve: (ret) => money(ret.totalRefund, ret.currency)!,
    }),
    totalStoreCredit: t.field({
      type: Money,
      nullable: false,
      description: 'Store credit given when the return was processed: the sum of its CREDIT items; zero before processing and after a reset',
      resolve: (ret) => money(ret.totalStoreCredit, ret.currency)!,
    }),
    allowedActions: t.field({
      type: [ReturnAction],
      nullable: false,
      description: "The operations the return's status allows now (the state machine of ReturnStatus); empty for a DELETED return",
      select: { status: true },
      resolve: (ret) => allowedOperations(ret.status),
    }),
    processingPreview: t.field({
      type: ReturnProcessingPreview,
      // Null, not an error, where processing is not allowed: a client selecting every field (SOFA's routes do) reads any return.
      nullable: true,
      description:
        'What processing the return would record now (returnItemsProcess with rejectItemIds rejected; returnProcess without), nothing ' +
        'written; null when its status does not allow processing (allowedActions). Errors: BAD_USER_INPUT for an id that is not an item still on the return.',
      args: {
        rejectItemIds: t.arg.idList({ description: 'ReturnItem ids (rli_) of items still on the return that processing would reject' }),
        outcomes: t.arg({
          type: [ReturnItemOutcomeInput],
          description: 'Items to reckon paid otherwise than asked (refund or credit), as returnItemsProcess outcome would pay them',
        }),
      },
      select: { number: true, status: true, currency: true, items: { ...ITEMS_ON_RETURN, select: { id: true, outcome: true, ...ITEM_AMOUNT_SELECT } } },
      resolve: (ret, args) => {
        if (!canApply('process', ret.status)) return null;
        const outcomes = (args.outcomes ?? []).map((choice) => ({ itemId: String(choice.itemId), outcome: choice.outcome }));
        return { ...previewProcessing(ret, (args.rejectItemIds ?? []).map(String), outcomes), currency: ret.currency };
      },
    }),
    asnRows: t.field({
      type: [ReturnAsnRow],
      nullable: false,
      description: 'One row per line item still on the return, as an advance shipping notice lists it',
      select: ASN_RETURN_SELECT,
      resolve: asnRowsOf,
    }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the return was created' }),
    updatedAt: t.expose('updatedAt', {
      nullable: false,
      type: 'DateTime',
      description: 'When the return last changed: its status, items, notes or tags',
    }),
  }),
});

const ReturnStatusCount = builder.objectRef<{ status: ReturnStatusValue; count: number }>('ReturnStatusCount').implement({
  description: 'The number of returns in one status',
  fields: (t) => ({
    status: t.field({ type: ReturnStatus, nullable: false, description: 'The status', resolve: (row) => row.status }),
    count: t.exposeInt('count', { nullable: false, description: 'How many returns are in it' }),
  }),
});

const ReturnConnection = builder.connectionObject({ type: Return, name: 'ReturnConnection' }, { name: 'ReturnEdge' });

export const ReturnAsnRow = builder.objectRef<AsnRow>('ReturnAsnRow').implement({
  description: 'One line item on a return, as an advance shipping notice lists it',
  fields: (t) => ({
    returnId: t.exposeID('returnId', { nullable: false, description: 'svc_id of the return' }),
    returnNumber: t.exposeInt('returnNumber', { nullable: false, description: "The return's numeric compatibility id" }),
    returnItemId: t.exposeID('returnItemId', { nullable: false, description: 'Our return item id (rli_) of the line' }),
    orderId: t.exposeID('orderId', { nullable: true, description: 'Our order id (ord_); null for an imported return' }),
    orderName: t.exposeString('orderName', { nullable: true, description: 'Order name such as #1001; null for an imported return' }),
    orderNumber: t.exposeString('orderNumber', { nullable: true, description: "The number in the order's name; null for an imported return" }),
    status: t.expose('status', { nullable: false, type: ReturnStatus, description: "The return's current status" }),
    customerEmail: t.exposeString('customerEmail', {
      nullable: true,
      description: "The order's customer e-mail (an imported return's customer e-mail); null when unknown",
    }),
    title: t.exposeString('title', { nullable: false, description: "The order line's title, or an imported item's title" }),
    sku: t.exposeString('sku', { nullable: true, description: "The order line's SKU, or an imported item's; null when there is none" }),
    barcode: t.exposeString('barcode', {
      nullable: true,
      description: "The matched product's UPC, else its first barcode (an imported item's own barcode first); null when there is none",
    }),
    unitPrice: t.field({
      type: Money,
      nullable: true,
      description: 'Price of one unit as ordered (an imported item: its product price at import); null when unknown',
      resolve: (row) => money(row.unitPrice, row.currency),
    }),
    currency: t.exposeString('currency', { nullable: false, description: "ISO 4217 code of the return's amounts" }),
    carrier: t.exposeString('carrier', { nullable: true, description: "Carrier of the return shipment; null when none was given" }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true, description: 'Tracking number of the return shipment; null when none was given' }),
    trackingUrl: t.exposeString('trackingUrl', { nullable: true, description: "As Return.trackingUrl: the carrier's tracking page; null when none was given" }),
    labelStatus: t.exposeString('labelStatus', { nullable: true, description: "The return's label status as recorded (free text); usually null" }),
    labelUrl: t.exposeString('labelUrl', { nullable: true, description: 'As Return.labelUrl: URL of the postage label; null when none was given' }),
    restockStatus: t.exposeString('restockStatus', { nullable: true, description: "As Return.restockStatus: pending, not_restocked, or null without a receiving location" }),
    receivingLocationId: t.exposeID('receivingLocationId', {
      nullable: true,
      description: 'As Return.receivingLocationId: our id (loc_) of the location receiving the return; null when an import named an address instead',
    }),
    receivingLocationName: t.exposeString('receivingLocationName', {
      nullable: true,
      description: 'Name of the location receiving the return; null when an import named an address instead',
    }),
    externalReferenceId: t.exposeString('externalReferenceId', {
      nullable: true,
      description: "As Return.externalReferenceId: an imported return's own return/RMA id, scannable at intake; null otherwise",
    }),
    reason: t.exposeString('reason', { nullable: true, description: "The line's reason for return as given; null when none was" }),
    outcome: t.field({ type: ReturnOutcome, nullable: false, description: 'What the customer gets for the line', resolve: (row) => row.outcome }),
    createdAt: t.expose('createdAt', { nullable: false, type: 'DateTime', description: 'When the return was created' }),
    updatedAt: t.expose('updatedAt', { nullable: false, type: 'DateTime', description: 'When the return last changed' }),
    closedAt: t.expose('closedAt', { nullable: true, type: 'DateTime', description: 'When the return was processed; null unless it is COMPLETE' }),
    deliveredAt: t.expose('deliveredAt', { nullable: true, type: 'DateTime', description: 'When the return last became DELIVERED; null if it never did' }),
    labelUpdatedAt: t.expose('labelUpdatedAt', { nullable: true, type: 'DateTime', description: 'When the label was given or its carrier, tracking number or status last changed; null without a label' }),
  }),
});

/** Plans the Return selection found at `paths` of the field being resolved. */
function returnQuery(ctx: GraphQLContext, info: GraphQLResolveInfo, paths: string[][]) {
  return queryFromInfo({ context: ctx, info, typeName: 'Return', paths });
}

export function loadReturn(ctx: GraphQLContext, info: GraphQLResolveInfo, id: string, path: string[] = []) {
  return ctx.reads.return.findUniqueOrThrow({ ...returnQuery(ctx, info, [path]), where: { id } });
}

type ArgBuilder = Parameters<Parameters<typeof builder.mutationFields>[0]>[0]['arg'];

export function returnRefArgs(t: { arg: ArgBuilder }) {
  return {
    id: t.arg.id({ description: "The return's svc_id (24 hex digits; the REST id)" }),
    number: t.arg.int({ description: "The return's numeric id of the compatibility interface (a positive integer)" }),
    orderName: t.arg.string({ description: 'An order name such as "#1001": names that order\'s newest return' }),
    orderId: t.arg.id({ description: "An order id (ord_): names that order's newest return" }),
  };
}

export function refOf(args: { id?: string | number | null; number?: number | null; orderName?: string | null; orderId?: string | number | null }): ReturnRef {
  return {
    id: args.id == null ? null : String(args.id),
    number: args.number,
    orderName: args.orderName,
    orderId: args.orderId == null ? null : String(args.orderId),
  };
}

/**
 * An outcome processingPreview reckons an item with. Named here, implemented beside the mutations
 * (returnMutations.ts) that take the same shape, so the schema registers it where it always did.
 */
export const ReturnItemOutcomeInput = builder.inputRef<{ itemId: string | number; outcome: ReturnOutcomeValue }>('ReturnItemOutcomeInput');

builder.queryFields((t) => ({
  returns: t.connection(
    {
      type: Return,
      nullable: false,
      description: 'Returns of the store matching every filter given, newest first by sortKey (ties by id). Needs returns_read.',
      authScopes: { scope: 'returns_read' },
      // Its one read (listReturns with plugin-prisma's plan of the selection) brings every row the selection reads.
      extensions: { [PLANNED_READ]: true },
      args: {
        status: t.arg({ type: [ReturnStatus], description: 'Only returns with one of these statuses; every status when omitted or empty' }),
        updatedAtMin: t.arg({ type: 'DateTime', description: 'Only returns last changed at or after this time (inclusive)' }),
        updatedAtMax: t.arg({ type: 'DateTime', description: 'Only returns last changed before this time (exclusive)' }),
        createdAtMin: t.arg({ type: 'DateTime', description: 'Only returns created at or after this time (inclusive)' }),
        createdAtMax: t.arg({ type: 'DateTime', description: 'Only returns created before this time (exclusive)' }),
        orderName: t.arg.string({ description: 'Only returns of the order with exactly this name, such as #1001' }),
        query: t.arg.string({ description: searchHelp('returns') }),
        sortKey: t.arg({ type: ReturnSortKey, defaultValue: 'updatedAt', description: 'What orders the list, newest (or largest) first; UPDATED_AT by default' }),
        reverse: t.arg.boolean({ defaultValue: false, description: 'Oldest (or smallest) first by sortKey instead; a cursor belongs to the order it was made in' }),
      },
      resolve: (_root, args, ctx, info) => {
        const field = args.sortKey ?? 'updatedAt';
        // A total's cursor keeps the exact decimal text the read gave it, never a float.
        const sort: KeysetSort = { field, kind: field === 'total' ? 'string' : 'date', direction: args.reverse ? 'asc' : 'desc' };
        const query = returnQuery(ctx, info, [['edges', 'node'], ['nodes']]);
        return keysetConnection<Plain<ReturnRow>>({
          cursors: ctx.services.cursors,
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
  returnStatusCounts: t.field({
    type: [ReturnStatusCount],
    nullable: false,
    description:
      'How many returns of the store each status holds among those the returns list would give for the same filters, status aside: ' +
      'one entry per status an operation of this service can lead to (0 when none is in it), then any other status a return is in. Needs returns_read.',
    authScopes: { scope: 'returns_read' },
    args: {
      query: t.arg.string({ description: searchHelp('returns') }),
      orderName: t.arg.string({ description: 'Only returns of the order with exactly this name, such as #1001' }),
    },
    resolve: (_root, args, ctx) => countReturnsByStatus(ctx.reads, ctx.prisma, storeIdOf(ctx), args),
  }),
  asnReturns: t.connection(
    {
      type: Return,
      nullable: false,
      description:
        'The returns an advance shipping notice lists (created in [from, to), not deleted), oldest first, ties by number: ' +
        'returnAsnRows a page at a time, each return with its asnRows. Needs returns_read; BAD_USER_INPUT unless from is before to.',
      authScopes: { scope: 'returns_read' },
      args: {
        from: t.arg({ type: 'DateTime', required: true, description: 'Start of the creation window (inclusive)' }),
        to: t.arg({ type: 'DateTime', required: true, description: 'End of the creation window (exclusive); must be after from' }),
      },
      resolve: (_root, args, ctx, info) => {
        const query = returnQuery(ctx, info, [['edges', 'node'], ['nodes']]);
        return keysetConnection<Plain<ReturnRow>>({
          cursors: ctx.services.cursors,
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
    description: 'A return of the store by its svc_id; null when the store has none with it. Needs returns_read.',
    authScopes: { scope: 'returns_read' },
    args: { id: t.arg.id({ required: true, description: 'svc_id of the return: 24 hex digits' }) },
    resolve: (query, _root, args, ctx) => ctx.reads.return.findFirst({ ...query, where: { id: String(args.id), storeId: storeIdOf(ctx) } }),
  }),
  findReturn: t.prismaField({
    type: 'Return',
    nullable: false,
    description:
      'The return named by any of: svc_id, compatibility number, order name or order id (an order\'s newest return). ' +
      'Needs returns_read; NOT_FOUND when nothing matches, BAD_USER_INPUT when no criterion is given or the criteria name different returns.',
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
    description:
      'One row per line item still on the returns created in [from, to) and not deleted, oldest return first (ties by number), unpaginated. ' +
      'Needs returns_read; BAD_USER_INPUT unless from is before to.',
    // The whole window in one answer, however many returns it holds (issue 24): the paged field replaces it.
    deprecationReason: 'Use asnReturns, which pages the same rows by return; this field answers the whole window at once',
    authScopes: { scope: 'returns_read' },
    args: {
      from: t.arg({ type: 'DateTime', required: true, description: 'Start of the creation window (inclusive)' }),
      to: t.arg({ type: 'DateTime', required: true, description: 'End of the creation window (exclusive); must be after from' }),
    },
    resolve: (_root, args, ctx) => listAsnRows(ctx.reads, storeIdOf(ctx), { from: args.from, to: args.to }),
  }),
}));
