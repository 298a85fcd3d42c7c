// Custom events: recorded through the customer_events_write scope (one, or up to 100 each
// on its own), read as a connection with customers_read, newest first. Every rule lives in
// domain/customEvents.ts; events are taken as JSON so that each event of a batch is
// validated on its own, with field paths, instead of failing the whole batch's coercion.
import type { CustomEvent as CustomEventRow } from '../generated/prisma/client.ts';
import { MAX_EVENTS_PER_BATCH, recordCustomEvent, recordCustomEvents, type CustomEventResult } from '../domain/customEvents.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { eventListArgs, newestEventsFirst } from './eventLists.ts';
import { UserError, type UserErrorShape } from './userErrors.ts';
import { toPlain } from '../db/reads/plain.ts';

const EVENT_SHAPE =
  '{eventName, customer: {id?, email?, phoneNumber?, firstName?, lastName?, location?, customFields?}, eventTimestamp?, data?, value?, valueCurrency?, uniqueId?}';

export const CustomEvent = builder.prismaObject('CustomEvent', {
  description: 'A merchant-defined event about a customer',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    eventName: t.exposeString('eventName', { nullable: false }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: false, description: 'The eventTimestamp sent, or when it was received' }),
    data: t.field({ type: 'JSON', nullable: false, description: 'Segmentable properties (0, null and "" dropped) and $extra as sent', resolve: (e) => e.data }),
    value: t.expose('value', { type: 'Decimal', nullable: true }),
    valueCurrency: t.exposeString('valueCurrency', { nullable: true }),
    uniqueId: t.exposeString('uniqueId', { nullable: true, description: "The merchant's deduplication key" }),
    customer: t.relation('customer', { nullable: false }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
  }),
});

const CustomEventConnection = builder.connectionObject({ type: CustomEvent, name: 'CustomEventConnection' });

builder.queryField('customEvents', (t) =>
  t.connection(
    {
      nullable: false,
      type: CustomEvent,
      description: 'Custom events of the store, newest first (ties by id)',
      authScopes: { scope: 'customers_read' },
      args: eventListArgs(t.arg),
      resolve: (_root, args, ctx, info) =>
        newestEventsFirst({ args, ctx, info, typeName: 'CustomEvent', scope: 'customEvents', findMany: (query) => ctx.reads.customEvent.findMany(query) }),
    },
    CustomEventConnection,
  ),
);

const CreateCustomEventPayload = builder.objectRef<{ event: CustomEventRow; duplicate: boolean }>('CreateCustomEventPayload').implement({
  fields: (t) => ({
    event: t.field({ type: CustomEvent, nullable: false, resolve: (p) => toPlain(p.event), description: 'For a duplicate, the event stored first with its uniqueId' }),
    duplicate: t.exposeBoolean('duplicate', { nullable: false, description: 'True when the uniqueId was already stored: nothing was written' }),
  }),
});

const CustomEventResultRef = builder.objectRef<CustomEventResult>('CustomEventResult').implement({
  description: 'What became of one event of a batch',
  fields: (t) => ({
    index: t.exposeInt('index', { nullable: false, description: 'Position of the event in the request' }),
    accepted: t.boolean({ nullable: false, resolve: (r) => r.outcome !== null }),
    duplicate: t.boolean({ nullable: false, resolve: (r) => r.outcome?.duplicate ?? false }),
    event: t.field({ type: CustomEvent, nullable: true, resolve: (r) => (r.outcome ? toPlain(r.outcome.event) : null) }),
    userErrors: t.field({
      type: [UserError],
      nullable: false,
      description: 'Why the event was refused (nothing of it written); fields are paths inside the event',
      resolve: (r): UserErrorShape[] => r.issues.map((issue) => ({ code: 'INVALID', field: issue.path ? issue.path.split('.') : null, message: issue.message })),
    }),
  }),
});

builder.mutationFields((t) => ({
  createCustomEvent: t.field({
    type: CreateCustomEventPayload,
    nullable: false,
    description: `Stores one custom event ${EVENT_SHAPE}; its customer is found by id, else e-mail, else phone number, or created`,
    authScopes: { scope: 'customer_events_write' },
    args: { event: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, ctx) => recordCustomEvent(ctx.prisma, storeIdOf(ctx), args.event),
  }),
  createCustomEvents: t.field({
    type: [CustomEventResultRef],
    nullable: false,
    description: `Stores 1 to ${MAX_EVENTS_PER_BATCH} custom events, each validated and written on its own; one result per event, in request order`,
    authScopes: { scope: 'customer_events_write' },
    args: { events: t.arg({ type: ['JSON'], required: { list: true, items: false } }) },
    resolve: (_root, args, ctx) => recordCustomEvents(ctx.prisma, storeIdOf(ctx), args.events),
  }),
}));
