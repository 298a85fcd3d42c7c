// The orderSync mutation: an order pushed (again and again) by the merchant's own
// platform so it becomes returnable. Rules live in domain/orderSync.ts.
import type { Order as OrderRow } from '../generated/prisma/client.ts';
import { syncOrder } from '../domain/orderSync.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { FulfillmentLineInput } from './fulfillments.ts';
import type { MutationFieldBuilder } from './node.ts';
import { Order, OrderAddressInput, OrderCustomerInput, orderLineInputFields } from './orders.ts';
import { toPlain } from '../db/reads/plain.ts';

type FieldBuilder = Parameters<typeof orderLineInputFields>[0];

/** A list of amounts, each >= 0 in the order currency. */
function amounts(t: FieldBuilder, description: string) {
  return t.field({ type: ['Decimal'], required: false, description: `${description}; >= 0 each, in the order currency` });
}

const OrderSyncLineItemInput = builder.inputType('OrderSyncLineItemInput', {
  description: 'One line of a synced order; a later sync keeps the line with the same id.',
  fields: (t) => ({
    ...orderLineInputFields(t),
    discounts: amounts(t, 'Discounts on the whole line (all its units)'),
    taxes: amounts(t, 'Taxes on the whole line (all its units)'),
  }),
});

const OrderSyncShippingLineInput = builder.inputType('OrderSyncShippingLineInput', {
  description: 'One shipping charge of a synced order.',
  fields: (t) => ({
    title: t.string({ required: true, description: "Name of the shipping method; the lines' titles joined make the order's shipping method" }),
    price: t.field({ type: 'Decimal', required: true, description: 'Price before tax and discounts: >= 0, in the order currency' }),
    discounts: amounts(t, 'Discounts on the shipping line'),
    taxes: amounts(t, 'Taxes on the shipping line'),
  }),
});

const OrderSyncFulfillmentInput = builder.inputType('OrderSyncFulfillmentInput', {
  description: 'One fulfillment (shipment) of a synced order.',
  fields: (t) => ({
    fulfillmentId: t.string({ required: true, description: "The merchant's fulfillment id, unique in the order" }),
    lineItems: t.field({ type: [FulfillmentLineInput], required: true, description: 'The order lines it ships, with their units' }),
    trackingCompany: t.string({ required: false, description: 'Carrier of the shipment; ignored without trackingNumber' }),
    trackingNumber: t.string({ required: false, description: "The carrier's tracking number" }),
    deliveredAt: t.field({ type: 'DateTime', required: false, description: 'Makes the fulfillment delivered' }),
  }),
});

const OrderSyncInput = builder.inputType('OrderSyncInput', {
  description: 'The whole order as the merchant platform has it now; totals are derived from its parts',
  fields: (t) => ({
    orderId: t.string({ required: true, description: "The merchant's order id: a second sync of it updates the order" }),
    createdAt: t.field({ type: 'DateTime', required: true, description: 'When the order was placed' }),
    currency: t.string({ required: false, description: 'ISO 4217; the store currency when omitted' }),
    customer: t.field({ type: OrderCustomerInput, required: false, description: "The customer as the merchant's platform has it" }),
    lineItems: t.field({ type: [OrderSyncLineItemInput], required: true, description: 'At least one' }),
    orderDiscounts: amounts(t, 'Discounts on the order as a whole'),
    shippingLines: t.field({ type: [OrderSyncShippingLineInput], required: false, description: 'Shipping charges; their prices less discounts make the shipping cost' }),
    shippingAddress: t.field({ type: OrderAddressInput, required: false, description: 'Where the order ships to' }),
    billingAddress: t.field({ type: OrderAddressInput, required: false, description: 'Billing address' }),
    tags: t.stringList({ required: false, description: 'Merchant tags, at most 250 of up to 255 characters each; trimmed, blanks refused, repeats dropped' }),
    fulfillments: t.field({ type: [OrderSyncFulfillmentInput], required: false, description: "The order's complete set of fulfillments" }),
  }),
});

const OrderSyncPayload = builder.objectRef<{ order: OrderRow; created: boolean }>('OrderSyncPayload').implement({
  description: 'What orderSync answers: the order as saved, and whether the sync created it.',
  fields: (t) => ({
    order: t.field({ type: Order, nullable: false, description: 'The order as saved', resolve: (payload) => toPlain(payload.order) }),
    created: t.exposeBoolean('created', { nullable: false, description: 'True when this sync created the order' }),
  }),
});

/** orderSync, and syncOrder: its deprecated old name (`deprecationReason`). */
function orderSyncField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: OrderSyncPayload,
    nullable: false,
    description:
      "Takes the whole order as the merchant's platform has it now, so it becomes returnable: creates it as orderCreate does (order.created) " +
      'or, when the store has its orderId, rewrites it in place (lines kept by id; order.updated), and makes its fulfillments the ones sent ' +
      '(fulfillment.created / fulfillment.updated), in one transaction; totals are derived from the parts sent. Needs orders_write. ' +
      'Errors: BAD_USER_INPUT, with every issue in extensions.issues and nothing written, for invalid input, a fulfillment shipping more ' +
      'than its lines ordered, or a line on a return that the sync removes or lowers below the units returns claim.',
    deprecationReason,
    authScopes: { scope: 'orders_write' },
    args: {
      input: t.arg({
        type: OrderSyncInput,
        required: true,
        description: "The whole order, keyed by the merchant's orderId; amounts are decimal amounts in the order currency, >= 0",
      }),
    },
    resolve: (_root, { input }, ctx) =>
      syncOrder(ctx.prisma, storeIdOf(ctx), {
        ...input,
        fulfillments: input.fulfillments?.map(({ trackingCompany, trackingNumber, ...fulfillment }) => ({
          ...fulfillment,
          tracking: trackingNumber ? { carrier: trackingCompany, code: trackingNumber } : null,
        })),
      }),
  });
}

builder.mutationField('orderSync', (t) => orderSyncField(t));
builder.mutationField('syncOrder', (t) => orderSyncField(t, 'Use orderSync'));
