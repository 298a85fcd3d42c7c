// Custom events: recorded through the customer_events_write scope (one, or up to 100 each
// on its own), read as a connection with customers_read, newest first. Every rule lives in
// domain/customEvents.ts; events are taken as JSON so that each event of a batch is
// validated on its own, with field paths, instead of failing the whole batch's coercion.
import type { CustomEvent as CustomEventRow } from '../generated/prisma/client.ts';
import { MAX_EVENTS_PER_BATCH, recordCustomEvent, recordCustomEvents, type CustomEventResult } from '../domain/customEvents.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { eventListArgs, newestEventsFirst } from './eventLists.ts';
import type { MutationFieldBuilder } from './node.ts';
import { UserError, type UserErrorShape } from './userErrors.ts';
import { toPlain } from '../db/reads/plain.ts';

const EVENT_SHAPE =
  '{eventName, customer: {id?, email?, phoneNumber?, firstName?, lastName?, location?, customFields?}, eventTimestamp?, data?, value?, valueCurrency?, uniqueId?}';

export const CustomEvent = builder.prismaObject('CustomEvent', {
  description: 'A merchant-defined event about a customer',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Opaque id of the event (it starts with `cev_`)' }),
    eventName: t.exposeString('eventName', { nullable: false, description: "The merchant's name for the event, 1 to 255 characters" }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: false, description: 'The eventTimestamp sent, or when it was received' }),
    data: t.field({ type: 'JSON', nullable: false, description: 'Segmentable properties (0, null and "" dropped) and $extra as sent', resolve: (e) => e.data }),
    value: t.expose('value', { type: 'Decimal', nullable: true, description: 'The value sent with the event (e.g. an amount in valueCurrency), exactly; null when none was sent' }),
    valueCurrency: t.exposeString('valueCurrency', { nullable: true, description: 'ISO 4217 code sent with the value (upper case); null when none was sent' }),
    uniqueId: t.exposeString('uniqueId', { nullable: true, description: "The merchant's deduplication key" }),
    customer: t.relation('customer', { nullable: false, description: 'The customer the event is about (found or created when it was stored)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the event was received and stored; `customEvents` is ordered by it' }),
  }),
});

const CustomEventConnection = builder.connectionObject({ type: CustomEvent, name: 'CustomEventConnection' });

builder.queryField('customEvents', (t) =>
  t.connection(
    {
      nullable: false,
      type: CustomEvent,
      description: 'Custom events of the store, newest received first (by createdAt, ties by id). Needs customers_read.',
      authScopes: { scope: 'customers_read' },
      args: eventListArgs(t.arg),
      resolve: (_root, args, ctx, info) =>
        newestEventsFirst({ args, ctx, info, typeName: 'CustomEvent', scope: 'customEvents', findMany: (query) => ctx.reads.customEvent.findMany(query) }),
    },
    CustomEventConnection,
  ),
);

/** What customEventCreate answers, under its name and under the deprecated createCustomEvent's one. */
function customEventCreatePayload(name: string, description: string) {
  return builder.objectRef<{ event: CustomEventRow; duplicate: boolean }>(name).implement({
    description,
    fields: (t) => ({
      event: t.field({
        type: CustomEvent,
        nullable: false,
        resolve: (p) => toPlain(p.event),
        description: 'The event stored; for a duplicate, the event stored first with this uniqueId',
      }),
      duplicate: t.exposeBoolean('duplicate', {
        nullable: false,
        description: 'True when the store already had an event with this uniqueId: nothing was written and no webhook event recorded',
      }),
    }),
  });
}

const CustomEventCreatePayload = customEventCreatePayload('CustomEventCreatePayload', 'What customEventCreate answers: the event stored, or the one it duplicates');
const CreateCustomEventPayload = customEventCreatePayload(
  'CreateCustomEventPayload',
  'Payload of the deprecated createCustomEvent; use customEventCreate, which answers the same fields as CustomEventCreatePayload',
);

const CustomEventResultRef = builder.objectRef<CustomEventResult>('CustomEventResult').implement({
  description: 'What became of one event of a batch',
  fields: (t) => ({
    index: t.exposeInt('index', { nullable: false, description: 'Position of the event in the request' }),
    accepted: t.boolean({ nullable: false, description: 'True when the event was valid: stored, or a duplicate of a stored one', resolve: (r) => r.outcome !== null }),
    duplicate: t.boolean({
      nullable: false,
      description: 'True when the store already had an event with its uniqueId: nothing was written',
      resolve: (r) => r.outcome?.duplicate ?? false,
    }),
    event: t.field({
      type: CustomEvent,
      nullable: true,
      description: 'The event stored (for a duplicate, the one stored first with its uniqueId); null when refused',
      resolve: (r) => (r.outcome ? toPlain(r.outcome.event) : null),
    }),
    userErrors: t.field({
      type: [UserError],
      nullable: false,
      description: 'Why the event was refused (nothing of it written); fields are paths inside the event',
      resolve: (r): UserErrorShape[] => r.issues.map((issue) => ({ code: 'INVALID', field: issue.path ? issue.path.split('.') : null, message: issue.message })),
    }),
  }),
});

const EVENT_RULES =
  'eventName 1 to 255 characters; customer needs at least one of id, email or phoneNumber (E.164); eventTimestamp an ISO 8601 date-time ' +
  'with a time zone (default: when received); value a finite number below 1e35 in magnitude; valueCurrency an ISO 4217 code; uniqueId ' +
  '1 to 255 characters; data at most 400 properties, each a string, number or boolean (0, null and "" are dropped), objects and arrays ' +
  'under $extra; strings at most 100 KB';

/** customEventCreate, and createCustomEvent: its deprecated old name (`deprecationReason`). */
function customEventCreateField(t: MutationFieldBuilder, payload: typeof CustomEventCreatePayload, deprecationReason?: string) {
  return t.field({
    type: payload,
    nullable: false,
    description:
      `Stores one custom event ${EVENT_SHAPE}. Its customer is found by customer.id, else e-mail, else phone number, or created, and the ` +
      'profile fields sent update it (customer.created / customer.updated); the event is recorded as custom_event.created, all in one ' +
      'transaction. An event whose uniqueId the store already has writes nothing and answers the first one (duplicate: true). ' +
      'Needs customer_events_write. Errors: BAD_USER_INPUT for an invalid event (every issue in extensions.issues, paths inside the event; ' +
      'nothing written), or a customer.id the store does not have sent without an e-mail or phone number to create the customer.',
    deprecationReason,
    authScopes: { scope: 'customer_events_write' },
    args: {
      event: t.arg({
        type: 'JSON',
        required: true,
        description: `The event as a JSON object ${EVENT_SHAPE}: ${EVENT_RULES}`,
      }),
    },
    resolve: (_root, args, ctx) => recordCustomEvent(ctx.prisma, storeIdOf(ctx), args.event),
  });
}

/** customEventsCreate, and createCustomEvents: its deprecated old name (`deprecationReason`). */
function customEventsCreateField(t: MutationFieldBuilder, deprecationReason?: string) {
  return t.field({
    type: [CustomEventResultRef],
    nullable: false,
    description:
      `Stores 1 to ${MAX_EVENTS_PER_BATCH} custom events, each validated and written in its own transaction as customEventCreate writes one, ` +
      'so a refused event leaves the others written; one result per event, in request order (a refused one with its userErrors, code ' +
      `INVALID). Needs customer_events_write. Errors: BAD_USER_INPUT when the list holds fewer than 1 or more than ${MAX_EVENTS_PER_BATCH} events.`,
    deprecationReason,
    authScopes: { scope: 'customer_events_write' },
    args: {
      events: t.arg({
        type: ['JSON'],
        required: { list: true, items: false },
        description: `1 to ${MAX_EVENTS_PER_BATCH} events, each a JSON object as customEventCreate takes it; an item that is not an object (or null) is refused in its own result`,
      }),
    },
    resolve: (_root, args, ctx) => recordCustomEvents(ctx.prisma, storeIdOf(ctx), args.events),
  });
}

builder.mutationFields((t) => ({
  customEventCreate: customEventCreateField(t, CustomEventCreatePayload),
  createCustomEvent: customEventCreateField(t, CreateCustomEventPayload, 'Use customEventCreate'),
  customEventsCreate: customEventsCreateField(t),
  createCustomEvents: customEventsCreateField(t, 'Use customEventsCreate'),
}));
