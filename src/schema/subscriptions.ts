// Live updates: subscriptions to stock levels and returns, served over server-sent events
// on /v3/graphql (schema/http.ts). The feed (live/feed.ts) says which committed change
// concerns the subscriber; each event's object is then read again with the subscription's
// selection, through the same store filter as the queries, so a subscriber sees exactly
// what a query would show it at that moment.
import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { builder } from './builder.ts';
import { storeIdOf, type GraphQLContext } from './context.ts';
import { fieldQuery } from './node.ts';
import { LocationInventoryLevel } from './inventory.ts';
import { Return, ReturnStatus } from './returns.ts';
import * as inventory from '../domain/inventory.ts';
import type { LiveAccess, LiveEvent } from '../live/feed.ts';
import { readsOnPrimary } from '../db/replicas.ts';

function liveAccess(ctx: GraphQLContext): LiveAccess {
  if (!ctx.live) {
    throw new GraphQLError('subscriptions are served on /v3/graphql as server-sent events (send Accept: text/event-stream)', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return ctx.live;
}

/**
 * One read per event for all the subscribers that select the same fields in the same
 * store, however many they are: the feed hands each of them the same event object.
 */
const readsByEvent = new WeakMap<LiveEvent, Map<string, Promise<unknown>>>();

function sharedRead<T>(event: LiveEvent, key: string, read: () => Promise<T>): Promise<T> {
  let reads = readsByEvent.get(event);
  if (!reads) readsByEvent.set(event, (reads = new Map()));
  let pending = reads.get(key) as Promise<T> | undefined;
  if (!pending) reads.set(key, (pending = read()));
  return pending;
}

/**
 * The subscriber's objects, read as each accepted event arrives; an object gone by then
 * (deleted before it could be read) is skipped. The subscription is registered with the feed
 * before this resolves, so the stream's first byte promises every later commit. The
 * request's per-request caches are emptied before each event, so nested fields read the
 * state of that event, not of the subscription's start.
 */
async function liveObjects<T>(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  typeName: string,
  accepts: (event: LiveEvent) => boolean,
  read: (query: Record<string, unknown>, event: LiveEvent, storeId: string) => Promise<T | null>,
): Promise<AsyncIterableIterator<T>> {
  const live = liveAccess(ctx);
  const storeId = storeIdOf(ctx);
  const query = fieldQuery(ctx, info, typeName);
  const key = `${storeId}\n${JSON.stringify(query)}`;
  await live.feed.ready;
  const events = live.feed.subscribe({ storeId, accepts, onOverflow: live.disconnectSlowReader });
  const end = () => events.return!() as Promise<IteratorReturnResult<undefined>>;
  const objects: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        const next = await events.next();
        if (next.done) return next;
        let object: T | null;
        try {
          // The change was announced by the primary at its commit; a replica may not have replayed it yet.
          object = await sharedRead(next.value, key, () => readsOnPrimary(() => read(query, next.value, storeId)));
        } catch (error) {
          await end();
          throw error;
        }
        if (object === null) continue;
        ctx.cache.clear();
        return { done: false, value: object };
      }
    },
    return: end,
    [Symbol.asyncIterator]() {
      return objects;
    },
  };
  return objects;
}

const SERVED_OVER =
  'Served on /v3/graphql as server-sent events: send the subscription with `Accept: text/event-stream` (GET or POST); ' +
  'each change arrives as an `event: next`, and a comment line every 12 seconds keeps proxies from closing the stream. ' +
  'An API client may hold a limited number of open subscriptions (HTTP 429 past it). A client that stops reading while events ' +
  'wait is disconnected; whenever events may have been missed the subscription completes: subscribe again and query what changed. ';

builder.subscriptionType({
  description:
    'Live updates of committed changes, from every instance of the service. Each event carries the object as it is when the event is sent. ' +
    SERVED_OVER,
});

builder.subscriptionFields((t) => ({
  inventoryLevelUpdated: t.field({
    type: LocationInventoryLevel,
    nullable: false,
    description:
      'A stock level of the store changed (an adjustment, a commitment, a reservation, a receipt...): one event per changed level, ' +
      "after the change committed. The caller sees its own products' levels and, as a fulfillment service, every level at its own locations. " +
      'Needs inventory_read, else FORBIDDEN when subscribing.',
    authScopes: { scope: 'inventory_read' },
    args: {
      locationId: t.arg.id({ required: false, description: 'Only levels at this location (loc_ id); all locations when omitted' }),
      productId: t.arg.id({ required: false, description: 'Only levels of this product (prd_ id); all products when omitted' }),
    },
    subscribe: (_root, args, ctx, info) => {
      const locationId = args.locationId == null ? null : String(args.locationId);
      const productId = args.productId == null ? null : String(args.productId);
      return liveObjects(
        ctx,
        info,
        'LocationInventoryLevel',
        (event) =>
          event.topic === 'inventory_level.updated' && (locationId === null || event.locationId === locationId) && (productId === null || event.productId === productId),
        (query, event, storeId) => ctx.reads.inventoryLevel.findFirst({ ...query, where: { id: event.subjectId, ...inventory.visibleLevelWhere(storeId) } }),
      );
    },
    resolve: (level) => level,
  }),
  returnUpdated: t.field({
    type: Return,
    nullable: false,
    description:
      "A return of the store was created or changed status (processed, flagged, rejected, reset, deleted...): one event each, after the change committed. " +
      'Notes, tags and removed items change no status and send nothing. Needs returns_read, else FORBIDDEN when subscribing.',
    authScopes: { scope: 'returns_read' },
    args: {
      status: t.arg({
        type: [ReturnStatus],
        required: false,
        description: 'Only returns that are now in one of these statuses; every status when omitted or empty',
      }),
    },
    subscribe: (_root, args, ctx, info) => {
      const statuses = args.status && args.status.length > 0 ? new Set<string>(args.status) : null;
      return liveObjects(
        ctx,
        info,
        'Return',
        (event) => (event.topic === 'return.created' || event.topic === 'return.updated') && (statuses === null || (event.status !== null && statuses.has(event.status))),
        (query, event, storeId) => ctx.reads.return.findFirst({ ...query, where: { id: event.subjectId, storeId } }),
      );
    },
    resolve: (object) => object,
  }),
}));
