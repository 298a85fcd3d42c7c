// The syncOrder mutation: an order pushed (again and again) by the merchant's own
// platform so it becomes returnable. Rules live in domain/orderSync.ts.
import type { Order as OrderRow } from '../generated/prisma/client.ts';
import { syncOrder } from '../domain/orderSync.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { FulfillmentLineInput } from './fulfillments.ts';
import { Order, OrderAddressInput, OrderCustomerInput, orderLineInputFields } from './orders.ts';
import { toPlain } from '../db/reads/plain.ts';

type FieldBuilder = Parameters<typeof orderLineInputFields>[0];

/** A list of amounts, each >= 0 in the order currency. */
function amounts(t: FieldBuilder, description: string) {
  return t.field({ type: ['Decimal'], required: false, description: `${description}; >= 0 each, in the order currency` });
}

const OrderSyncLineItemInput = builder.inputType('OrderSyncLineItemInput', {
  fields: (t) => ({
    ...orderLineInputFields(t),
    discounts: amounts(t, 'Discounts on the whole line (all its units)'),
    taxes: amounts(t, 'Taxes on the whole line (all its units)'),
  }),
});

const OrderSyncShippingLineInput = builder.inputType('OrderSyncShippingLineInput', {
  fields: (t) => ({
    title: t.string({ required: true }),
    price: t.field({ type: 'Decimal', required: true, description: 'Before tax and discounts' }),
    discounts: amounts(t, 'Discounts on the shipping line'),
    taxes: amounts(t, 'Taxes on the shipping line'),
  }),
});

const OrderSyncFulfillmentInput = builder.inputType('OrderSyncFulfillmentInput', {
  fields: (t) => ({
    fulfillmentId: t.string({ required: true, description: "The merchant's fulfillment id, unique in the order" }),
    lineItems: t.field({ type: [FulfillmentLineInput], required: true }),
    trackingCompany: t.string({ required: false }),
    trackingNumber: t.string({ required: false }),
    deliveredAt: t.field({ type: 'DateTime', required: false, description: 'Makes the fulfillment delivered' }),
  }),
});

const OrderSyncInput = builder.inputType('OrderSyncInput', {
  description: 'The whole order as the merchant platform has it now; totals are derived from its parts',
  fields: (t) => ({
    orderId: t.string({ required: true, description: "The merchant's order id: a second sync of it updates the order" }),
    createdAt: t.field({ type: 'DateTime', required: true }),
    currency: t.string({ required: false, description: 'ISO 4217; the store currency when omitted' }),
    customer: t.field({ type: OrderCustomerInput, required: false }),
    lineItems: t.field({ type: [OrderSyncLineItemInput], required: true, description: 'At least one' }),
    orderDiscounts: amounts(t, 'Discounts on the order as a whole'),
    shippingLines: t.field({ type: [OrderSyncShippingLineInput], required: false }),
    shippingAddress: t.field({ type: OrderAddressInput, required: false }),
    billingAddress: t.field({ type: OrderAddressInput, required: false }),
    tags: t.stringList({ required: false }),
    fulfillments: t.field({ type: [OrderSyncFulfillmentInput], required: false, description: "The order's complete set of fulfillments" }),
  }),
});

const OrderSyncPayload = builder.objectRef<{ order: OrderRow; created: boolean }>('OrderSyncPayload').implement({
  fields: (t) => ({
    order: t.field({ type: Order, nullable: false, resolve: (payload) => toPlain(payload.order) }),
    created: t.exposeBoolean('created', { nullable: false, description: 'True when this sync created the order' }),
  }),
});

builder.mutationField('syncOrder', (t) =>
  t.field({
    type: OrderSyncPayload,
    nullable: false,
    description:
      'Creates the order or, when the store has its orderId, rewrites it in place (lines kept by id, fulfillments replaced). ' +
      'A line on a return cannot be removed, nor lowered below the units returns claim.',
    authScopes: { scope: 'orders_write' },
    args: { input: t.arg({ type: OrderSyncInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      syncOrder(ctx.prisma, storeIdOf(ctx), {
        ...input,
        fulfillments: input.fulfillments?.map(({ trackingCompany, trackingNumber, ...fulfillment }) => ({
          ...fulfillment,
          tracking: trackingNumber ? { carrier: trackingCompany, code: trackingNumber } : null,
        })),
      }),
  }),
);
