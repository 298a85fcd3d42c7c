// Storefront (web pixel) events: recorded through the storefront_events_write scope,
// read as a connection with customers_read, newest first.
import { recordStorefrontEvent, STOREFRONT_EVENT_NAMES, STOREFRONT_EVENT_SOURCES } from '../domain/storefrontEvents.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { eventListArgs, newestEventsFirst } from './eventLists.ts';

export const StorefrontEvent = builder.prismaObject('StorefrontEvent', {
  description: 'A web pixel event a storefront sent (page views, cart and checkout steps), stored once per eventId.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'Opaque id of the stored event (it starts with `sfe_`)' }),
    eventId: t.exposeString('eventId', { nullable: false, description: "The storefront's own id; an event is stored once per id" }),
    eventName: t.exposeString('eventName', { nullable: false, description: `What happened: one of ${STOREFRONT_EVENT_NAMES.join(', ')}` }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: false, description: 'When it happened: the timestamp the storefront sent' }),
    source: t.exposeString('source', { nullable: false, description: `The pixel that sent it: ${STOREFRONT_EVENT_SOURCES.join(', ')}` }),
    customerEmail: t.exposeString('customerEmail', {
      nullable: true,
      description: 'The e-mail sent with the event (customerEmail, else customer.email), lower case; null when none was valid',
    }),
    anonymousId: t.exposeString('anonymousId', { nullable: true, description: 'The storefront client id' }),
    customer: t.relation('customer', { nullable: true, description: 'Matched by e-mail, or by an earlier event of the same client id' }),
    payload: t.field({ type: 'JSON', nullable: false, description: 'The event as received', resolve: (e) => e.payload }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false, description: 'When the event was received and stored; `storefrontEvents` is ordered by it' }),
  }),
});

const StorefrontEventConnection = builder.connectionObject({ type: StorefrontEvent, name: 'StorefrontEventConnection' });

builder.queryField('storefrontEvents', (t) =>
  t.connection(
    {
      nullable: false,
      type: StorefrontEvent,
      description: 'Storefront events of the store, newest received first (by createdAt, ties by id). Needs customers_read.',
      authScopes: { scope: 'customers_read' },
      args: eventListArgs(t.arg),
      resolve: (_root, args, ctx, info) =>
        newestEventsFirst({ args, ctx, info, typeName: 'StorefrontEvent', scope: 'storefrontEvents', findMany: (query) => ctx.reads.storefrontEvent.findMany(query) }),
    },
    StorefrontEventConnection,
  ),
);

builder.mutationField('storefrontEventRecord', (t) =>
  t.boolean({
    nullable: false,
    description:
      'Stores a web pixel event and records storefront_event.created; true when new, false when its eventId was already stored (nothing changes). ' +
      'Needs storefront_events_write; an event not of the pixel shape gives BAD_USER_INPUT with every issue in extensions.issues.',
    authScopes: { scope: 'storefront_events_write' },
    args: {
      event: t.arg({
        type: 'JSON',
        required: true,
        description:
          `The event as a JSON object: eventId (1 to 255 characters), eventName (${STOREFRONT_EVENT_NAMES.join(', ')}), timestamp (ISO 8601 date-time) ` +
          `and source (${STOREFRONT_EVENT_SOURCES.join(', ')}) are required; other properties are kept as sent.`,
      }),
    },
    resolve: async (_root, args, ctx) => (await recordStorefrontEvent(ctx.prisma, storeIdOf(ctx), args.event)).created,
  }),
);
