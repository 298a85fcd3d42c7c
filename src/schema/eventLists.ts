// Lists of events about a store's customers (storefront events, custom events): newest
// first, ties by id, optionally only one customer's or one event name's. The nodes' own
// selections load in the same query.
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { ArgBuilder } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { storeIdOf, type GraphQLContext } from './context.ts';
import { keysetConnection, type ConnectionArgs } from './keyset.ts';
import type { BuilderTypes } from './node.ts';

export interface EventListArgs extends ConnectionArgs {
  customerId?: string | number | null;
  eventName?: string | null;
}

/** The list's filter arguments. */
export const eventListArgs = (arg: ArgBuilder<BuilderTypes>) => ({
  customerId: arg.id({ required: false, description: 'Only the events of this customer (its `cus_` id)' }),
  eventName: arg.string({ required: false, description: 'Only the events with exactly this name' }),
});

export function newestEventsFirst<T extends { id: string }>(options: {
  args: EventListArgs;
  ctx: GraphQLContext;
  info: GraphQLResolveInfo;
  typeName: 'StorefrontEvent' | 'CustomEvent';
  /** Names the list in its cursors. */
  scope: string;
  findMany: (query: { where: object; orderBy: object[]; take: number }) => Promise<T[]>;
}) {
  const { args, ctx, info, typeName } = options;
  const storeId = storeIdOf(ctx);
  const filters = { ...(args.customerId ? { customerId: String(args.customerId) } : {}), ...(args.eventName ? { eventName: args.eventName } : {}) };
  return keysetConnection({
    cursors: ctx.services.cursors,
    args,
    sort: { field: 'createdAt', kind: 'date', direction: 'desc' },
    scope: options.scope,
    fetch: ({ where, orderBy, take }) =>
      options.findMany({
        ...queryFromInfo({ context: ctx, info, typeName, paths: [['edges', 'node'], ['nodes']] }),
        where: { AND: [where, { storeId, ...filters }] },
        orderBy,
        take,
      }),
  });
}
