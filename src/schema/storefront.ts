// Storefront (web pixel) events: recorded through the storefront_events_write scope,
// read as a connection with customers_read, newest first.
import { recordStorefrontEvent } from '../domain/storefrontEvents.ts';
import { builder } from './builder.ts';
import { storeIdOf } from './context.ts';
import { eventListArgs, newestEventsFirst } from './eventLists.ts';

export const StorefrontEvent = builder.prismaObject('StorefrontEvent', {
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false }),
    eventId: t.exposeString('eventId', { nullable: false, description: "The storefront's own id; an event is stored once per id" }),
    eventName: t.exposeString('eventName', { nullable: false }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: false }),
    source: t.exposeString('source', { nullable: false }),
    customerEmail: t.exposeString('customerEmail', { nullable: true }),
    anonymousId: t.exposeString('anonymousId', { nullable: true, description: 'The storefront client id' }),
    customer: t.relation('customer', { nullable: true, description: 'Matched by e-mail, or by an earlier event of the same client id' }),
    payload: t.field({ type: 'JSON', nullable: false, description: 'The event as received', resolve: (e) => e.payload }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: false }),
  }),
});

const StorefrontEventConnection = builder.connectionObject({ type: StorefrontEvent, name: 'StorefrontEventConnection' });

builder.queryField('storefrontEvents', (t) =>
  t.connection(
    {
      nullable: false,
      type: StorefrontEvent,
      description: 'Storefront events of the store, newest first (ties by id)',
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
    description: 'Stores a pixel event; true when new, false when its eventId was already stored (nothing changes)',
    authScopes: { scope: 'storefront_events_write' },
    args: { event: t.arg({ type: 'JSON', required: true }) },
    resolve: async (_root, args, ctx) => (await recordStorefrontEvent(ctx.prisma, storeIdOf(ctx), args.event)).created,
  }),
);
