// Fulfillments with tracking, shipment status updates and order deletion on v3; the
// rules live in domain/fulfillments.ts.
import { chooseReferencedOrder, createFulfillment, deleteOrder, orderReferenceQuery, SHIPMENT_EVENTS, SHIPMENT_STATUSES, updateShipmentStatus } from '../domain/fulfillments.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import type { MutationFieldBuilder } from './node.ts';
import { Order } from './orders.ts';
import { toPlain } from '../db/reads/plain.ts';

const TrackingLocation = builder.objectRef<{ city: string | null; state: string | null; country: string | null; postalCode: string | null }>('TrackingLocation').implement({
  description: 'Where a tracking entry happened, as reported; each part is null when not reported',
  fields: (t) => ({
    city: t.exposeString('city', { nullable: true, description: 'City or town' }),
    state: t.exposeString('state', { nullable: true, description: 'State or province' }),
    country: t.exposeString('country', { nullable: true, description: 'Country as reported (free text)' }),
    postalCode: t.exposeString('postalCode', { nullable: true, description: 'Postal or ZIP code' }),
  }),
});

export const FulfillmentTrackingEvent = builder.prismaObject('FulfillmentTrackingEvent', {
  description: "One entry of a fulfillment's tracking history: a shipment status or an automation event",
  fields: (t) => ({
    status: t.exposeString('status', { nullable: false, description: 'A shipment status or an automation event' }),
    message: t.exposeString('message', { nullable: false, description: 'Text of the entry, up to 1000 characters; the status itself when none was given' }),
    datetime: t.expose('occurredAt', { type: 'DateTime', nullable: false, description: 'When it happened: the datetime reported, else when it was recorded' }),
    location: t.field({
      type: TrackingLocation,
      nullable: true,
      description: 'Where it happened; null when no part of a location was reported',
      resolve: (e) => (e.city ?? e.state ?? e.country ?? e.postalCode ? { city: e.city, state: e.state, country: e.country, postalCode: e.postalCode } : null),
    }),
  }),
});

export const FulfillmentLineItem = builder.prismaObject('FulfillmentLineItem', {
  description: 'Units of one order line shipped in a fulfillment',
  fields: (t) => ({
    quantity: t.exposeInt('quantity', { nullable: false, description: 'Units of the line in this fulfillment, 1 to 1000' }),
    orderLineItem: t.relation('orderLineItem', { nullable: false, description: 'The order line shipped' }),
  }),
});

export const Fulfillment = builder.prismaObject('Fulfillment', {
  description: "A shipment of some of an order's lines, with the carrier's tracking",
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Our fulfillment id (fmt_)' }),
    fulfillmentId: t.exposeString('externalId', { nullable: false, description: "The caller's fulfillmentId, else our id" }),
    status: t.exposeString('status', {
      nullable: false,
      description:
        'Current shipment status: pre_transit (the start), unknown, in_transit, out_for_delivery, available_for_pickup, delivered, ' +
        'return_to_sender, failure, cancelled or error; automation events leave it',
    }),
    trackingCompany: t.exposeString('trackingCompany', { nullable: true, description: 'Carrier name (tracking.carrier); null without tracking' }),
    trackingNumber: t.exposeString('trackingNumber', { nullable: true, description: "The carrier's tracking number (tracking.code); null without tracking" }),
    estimatedDeliveryDate: t.exposeString('estimatedDeliveryDate', { nullable: true, description: "The carrier's estimated delivery day, YYYY-MM-DD (UTC); null when unknown" }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true, description: 'When the shipment was delivered (set by a delivered status); null before' }),
    lineItems: t.relation('lineItems', { nullable: false, description: 'The order lines and units this fulfillment ships' }),
    trackingHistory: t.relation('trackingEvents', {
      nullable: false,
      description: 'Every tracking entry (statuses and automation events), oldest first by datetime',
      query: { orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the fulfillment was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: false, description: 'When the fulfillment last changed' }),
  }),
});

builder.prismaObjectField('Order', 'fulfillments', (t) =>
  t.relation('fulfillments', { nullable: false, description: "The order's fulfillments, oldest first", query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
);

builder.queryField('orderByReference', (t) =>
  t.prismaField({
    type: 'Order',
    nullable: true,
    description: "An order of the store by our id, the merchant's orderId or the order name (#1001); null when absent. Needs orders_read.",
    authScopes: { scope: 'orders_read' },
    args: {
      reference: t.arg.string({
        required: true,
        description: "Our ord_ id, the merchant's orderId or the order name; when several orders match, our id wins, then the merchant's id",
      }),
    },
    // One statement: the whole selection of every candidate (at most one per way of naming), then the choice.
    resolve: async (query, _root, args, ctx) => {
      const candidates = await ctx.reads.order.findMany({ ...query, ...orderReferenceQuery(storeIdOf(ctx), { reference: args.reference, byName: true }) });
      return chooseReferencedOrder(candidates, args.reference);
    },
  }),
);

const TrackingLocationInput = builder.inputType('TrackingLocationInput', {
  description: 'Where a tracking entry happened; every part optional, up to 255 characters, blank treated as absent',
  fields: (t) => ({
    city: t.string({ required: false, description: 'City or town' }),
    state: t.string({ required: false, description: 'State or province' }),
    country: t.string({ required: false, description: 'Country (free text)' }),
    postalCode: t.string({ required: false, description: 'Postal or ZIP code' }),
  }),
});

const TrackingUpdateInput = builder.inputType('TrackingUpdateInput', {
  description: "A tracking entry of a fulfillment; every entry is added to its trackingHistory, and a shipment status also replaces its current status",
  fields: (t) => ({
    status: t.string({
      required: true,
      description:
        'A shipment status (pre_transit, in_transit, out_for_delivery, available_for_pickup, delivered, return_to_sender, failure, cancelled, error), ' +
        'which replaces the current one, or an automation event (stalled_in_transit, delayed, arriving_early); initialTracking takes statuses only, unknown included',
    }),
    estimatedDeliveryDate: t.field({
      type: 'DateTime',
      required: false,
      description: "The carrier's estimated delivery; its UTC day becomes Fulfillment.estimatedDeliveryDate, null clears it, omitted keeps it",
    }),
    message: t.string({ required: false, description: 'Text of the entry, up to 1000 characters; the status when omitted' }),
    datetime: t.field({ type: 'DateTime', required: false, description: 'When it happened; now when omitted' }),
    location: t.field({ type: TrackingLocationInput, required: false, description: 'Where it happened' }),
  }),
});

export const FulfillmentLineInput = builder.inputType('FulfillmentLineInput', {
  description: 'Units of one order line in a fulfillment',
  fields: (t) => ({
    id: t.string({ required: true, description: "The merchant's line item id (or our oli_ id)" }),
    quantity: t.int({
      required: true,
      description: "Units shipped, 1 to 1000; all of the order's fulfillments together ship at most the line's ordered quantity",
    }),
  }),
});

const TrackingCodeInput = builder.inputType('TrackingCodeInput', {
  description: 'The carrier and tracking number of a shipment',
  fields: (t) => ({
    carrier: t.string({ required: true, description: 'Carrier name, e.g. UPS, up to 255 characters; becomes Fulfillment.trackingCompany' }),
    code: t.string({ required: true, description: "The carrier's tracking number, up to 255 characters; becomes Fulfillment.trackingNumber" }),
  }),
});

const FulfillmentInput = builder.inputType('FulfillmentInput', {
  description: "A new fulfillment of some units of an order's lines",
  fields: (t) => ({
    fulfillmentId: t.string({ required: false, description: 'Unique in the order; our id when omitted' }),
    lineItems: t.field({ type: [FulfillmentLineInput], required: true, description: 'The lines and units shipped: at least one; a line named twice adds up' }),
    tracking: t.field({ type: TrackingCodeInput, required: false, description: 'Carrier and tracking number; none when omitted' }),
    initialTracking: t.field({
      type: TrackingUpdateInput,
      required: false,
      description: 'First tracking entry; its status (a shipment status, not an automation event) becomes the current one, else pre_transit',
    }),
  }),
});

const ORDER_REFERENCE = "Our ord_ id or the merchant's orderId";

/** fulfillmentCreate, and createFulfillment: its deprecated old name (`deprecationReason`). */
function fulfillmentCreateField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'Fulfillment',
    nullable: false,
    description:
      "Fulfills units of an order's lines: the fulfillment with its lines, carrier tracking and first tracking entry, and the " +
      'fulfillment.created event, in one transaction. Over all of its fulfillments a line never ships more than it ordered. The status ' +
      "is initialTracking's status, else pre_transit. Needs orders_write. Errors: NOT_FOUND for an unknown order; BAD_USER_INPUT for a line " +
      'the order lacks, a quantity outside 1 to 1000 or beyond what is left to ship, an unknown status or a date-time without a time zone ' +
      '(every issue in extensions.issues; nothing written); CONFLICT when the order already has a fulfillment with this fulfillmentId.',
    deprecationReason,
    authScopes: { scope: 'orders_write' },
    args: {
      orderId: t.arg.string({ required: true, description: ORDER_REFERENCE }),
      input: t.arg({
        type: FulfillmentInput,
        required: true,
        description: "The lines to ship (the merchant's line item id or our oli_ id, 1 to 1000 units each), tracking and the first tracking entry",
      }),
    },
    resolve: async (query, _root, { orderId, input }, ctx) => {
      const created = await createFulfillment(ctx.prisma, storeIdOf(ctx), orderId, input);
      return ctx.reads.fulfillment.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  });
}

/** fulfillmentShipmentStatusUpdate, and updateFulfillmentShipmentStatus: its deprecated old name (`deprecationReason`). */
function fulfillmentShipmentStatusUpdateField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.prismaField({
    type: 'Fulfillment',
    nullable: false,
    description:
      "Adds a tracking entry to one of an order's fulfillments and records fulfillment.updated, in one transaction. A shipment status " +
      `(${SHIPMENT_STATUSES.filter((s) => s !== 'unknown').join(', ')}) replaces the current one (delivered also sets deliveredAt); an ` +
      `automation event (${SHIPMENT_EVENTS.join(', ')}) only adds to the tracking history. A given estimatedDeliveryDate replaces the ` +
      'estimate. Needs orders_write. Errors: NOT_FOUND for an unknown order or fulfillment; BAD_USER_INPUT for another status or a ' +
      'date-time without a time zone (nothing written).',
    deprecationReason,
    authScopes: { scope: 'orders_write' },
    args: {
      orderId: t.arg.string({ required: true, description: ORDER_REFERENCE }),
      fulfillmentId: t.arg.string({ required: true, description: 'The fulfillmentId the fulfillment was created with, or our fmt_ id' }),
      input: t.arg({ type: TrackingUpdateInput, required: true, description: 'The status or automation event, with its message, time and place' }),
    },
    resolve: async (query, _root, { orderId, fulfillmentId, input }, ctx) => {
      const updated = await updateShipmentStatus(ctx.prisma, storeIdOf(ctx), orderId, fulfillmentId, input);
      return ctx.reads.fulfillment.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  });
}

/** orderDelete, and deleteOrder: its deprecated old name (`deprecationReason`). */
function orderDeleteField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: Order,
    nullable: false,
    description:
      'Deletes an order with its lines and fulfillments, gives back the stock its lines committed and records order.deleted, in one ' +
      'transaction; answers the order as it was. Needs orders_write. Errors: NOT_FOUND for an unknown order; CONFLICT when the order has ' +
      'returns (they depend on it).',
    deprecationReason,
    authScopes: { scope: 'orders_write' },
    args: { orderId: t.arg.string({ required: true, description: ORDER_REFERENCE }) },
    resolve: async (_root, { orderId }, ctx) => toPlain(await deleteOrder(ctx.prisma, storeIdOf(ctx), orderId)),
  });
}

builder.mutationFields((t) => ({
  fulfillmentCreate: fulfillmentCreateField(t),
  createFulfillment: fulfillmentCreateField(t, 'Use fulfillmentCreate'),
  fulfillmentShipmentStatusUpdate: fulfillmentShipmentStatusUpdateField(t),
  updateFulfillmentShipmentStatus: fulfillmentShipmentStatusUpdateField(t, 'Use fulfillmentShipmentStatusUpdate'),
  orderDelete: orderDeleteField(t),
  deleteOrder: orderDeleteField(t, 'Use orderDelete'),
}));
