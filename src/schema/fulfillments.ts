// Fulfillments with tracking, shipment status updates and order deletion on v3; the
// rules live in domain/fulfillments.ts.
import { createFulfillment, deleteOrder, findOrder, updateShipmentStatus } from '../domain/fulfillments.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { Order } from './orders.ts';
import { toPlain } from '../db/reads/plain.ts';

const TrackingLocation = builder.objectRef<{ city: string | null; state: string | null; country: string | null; postalCode: string | null }>('TrackingLocation').implement({
  fields: (t) => ({
    city: t.exposeString('city', { nullable: true }),
    state: t.exposeString('state', { nullable: true }),
    country: t.exposeString('country', { nullable: true }),
    postalCode: t.exposeString('postalCode', { nullable: true }),
  }),
});

export const FulfillmentTrackingEvent = builder.prismaObject('FulfillmentTrackingEvent', {
  fields: (t) => ({
    status: t.exposeString('status', { nullable: false, description: 'A shipment status or an automation event' }),
    message: t.exposeString('message', { nullable: false }),
    datetime: t.expose('occurredAt', { type: 'DateTime', nullable: false }),
    location: t.field({
      type: TrackingLocation,
      nullable: true,
      resolve: (e) => (e.city ?? e.state ?? e.country ?? e.postalCode ? { city: e.city, state: e.state, country: e.country, postalCode: e.postalCode } : null),
    }),
  }),
});

export const FulfillmentLineItem = builder.prismaObject('FulfillmentLineItem', {
  fields: (t) => ({
    quantity: t.exposeInt('quantity', { nullable: false }),
    orderLineItem: t.relation('orderLineItem', { nullable: false }),
  }),
});

export const Fulfillment = builder.prismaObject('Fulfillment', {
  description: "A shipment of some of an order's lines, with the carrier's tracking",
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    fulfillmentId: t.exposeString('externalId', { nullable: false, description: "The caller's fulfillmentId, else our id" }),
    status: t.exposeString('status', { nullable: false, description: 'Current shipment status (pre_transit ... error)' }),
    trackingCompany: t.exposeString('trackingCompany', { nullable: true }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true }),
    estimatedDeliveryDate: t.exposeString('estimatedDeliveryDate', { nullable: true, description: 'YYYY-MM-DD' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    lineItems: t.relation('lineItems', { nullable: false }),
    trackingHistory: t.relation('trackingEvents', { nullable: false, query: { orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] } }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false }),
  }),
});

builder.prismaObjectField('Order', 'fulfillments', (t) =>
  t.relation('fulfillments', { nullable: false, description: 'Oldest first', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
);

builder.queryField('orderByReference', (t) =>
  t.prismaField({
    type: 'Order',
    nullable: true,
    description: "An order of the store by our id, the merchant's orderId or the order name (#1001); null when absent",
    authScopes: { scope: 'orders_read' },
    args: { reference: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const order = await findOrder(ctx.prisma, storeIdOf(ctx), { reference: args.reference, byName: true });
      return order && ctx.reads.order.findUnique({ ...query, where: { id: order.id } });
    },
  }),
);

const TrackingLocationInput = builder.inputType('TrackingLocationInput', {
  fields: (t) => ({
    city: t.string({ required: false }),
    state: t.string({ required: false }),
    country: t.string({ required: false }),
    postalCode: t.string({ required: false }),
  }),
});

const TrackingUpdateInput = builder.inputType('TrackingUpdateInput', {
  fields: (t) => ({
    status: t.string({
      required: true,
      description: 'A shipment status (replaces the current one) or an automation event: stalled_in_transit, delayed, arriving_early',
    }),
    estimatedDeliveryDate: t.field({ type: 'DateTime', required: false }),
    message: t.string({ required: false, description: 'The status when omitted' }),
    datetime: t.field({ type: 'DateTime', required: false, description: 'Now when omitted' }),
    location: t.field({ type: TrackingLocationInput, required: false }),
  }),
});

export const FulfillmentLineInput = builder.inputType('FulfillmentLineInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: "The merchant's line item id (or our oli_ id)" }),
    quantity: t.int({ required: true }),
  }),
});

const TrackingCodeInput = builder.inputType('TrackingCodeInput', {
  fields: (t) => ({ carrier: t.string({ required: true }), code: t.string({ required: true }) }),
});

const FulfillmentInput = builder.inputType('FulfillmentInput', {
  fields: (t) => ({
    fulfillmentId: t.string({ required: false, description: 'Unique in the order; our id when omitted' }),
    lineItems: t.field({ type: [FulfillmentLineInput], required: true }),
    tracking: t.field({ type: TrackingCodeInput, required: false }),
    initialTracking: t.field({ type: TrackingUpdateInput, required: false, description: 'First tracking entry; its status becomes the current one' }),
  }),
});

builder.mutationFields((t) => ({
  createFulfillment: t.prismaField({
    type: 'Fulfillment',
    nullable: false,
    description: 'Fulfills units of an order’s lines with tracking and records fulfillment.created',
    authScopes: { scope: 'orders_write' },
    args: {
      orderId: t.arg.string({ required: true, description: "Our ord_ id or the merchant's orderId" }),
      input: t.arg({ type: FulfillmentInput, required: true }),
    },
    resolve: async (query, _root, { orderId, input }, ctx) => {
      const created = await createFulfillment(ctx.prisma, storeIdOf(ctx), orderId, input);
      return ctx.reads.fulfillment.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateFulfillmentShipmentStatus: t.prismaField({
    type: 'Fulfillment',
    nullable: false,
    description: 'Records a shipment status or automation event and records fulfillment.updated',
    authScopes: { scope: 'orders_write' },
    args: {
      orderId: t.arg.string({ required: true }),
      fulfillmentId: t.arg.string({ required: true, description: 'The fulfillmentId or our fmt_ id' }),
      input: t.arg({ type: TrackingUpdateInput, required: true }),
    },
    resolve: async (query, _root, { orderId, fulfillmentId, input }, ctx) => {
      const updated = await updateShipmentStatus(ctx.prisma, storeIdOf(ctx), orderId, fulfillmentId, input);
      return ctx.reads.fulfillment.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
  deleteOrder: t.field({
    type: Order,
    nullable: false,
    description: 'Deletes an order without returns, releases its committed stock and records order.deleted; answers the order as it was',
    authScopes: { scope: 'orders_write' },
    args: { orderId: t.arg.string({ required: true, description: "Our ord_ id or the merchant's orderId" }) },
    resolve: async (_root, { orderId }, ctx) => toPlain(await deleteOrder(ctx.prisma, storeIdOf(ctx), orderId)),
  }),
}));
