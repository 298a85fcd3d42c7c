// Live events for GraphQL subscriptions. A change announces its event on the database
// channel LIVE_CHANNEL from the transaction that writes it (a trigger on "Event", see the
// migration live_event_notify), and PostgreSQL delivers the announcement at commit to
// every instance listening: a rolled-back change announces nothing, and a subscriber of
// any instance hears a change made through any other. PGlite delivers it in process.
//
// The feed hears the announcements (announcements.ts: from the database, or through Redis)
// and fans each out to the subscribers of the stores it concerns. Each subscriber has a
// bounded queue: one whose client stopped taking events (its stream asked for none for
// STALLED_MS) with maxPending waiting is dropped (onOverflow), never buffered without bound.
// A backlog the service itself builds (changes coming faster than it sends them to every
// stream) is no client's fault: its streams keep asking, and only a backlog LAGGING_FACTOR
// times larger drops them. Waiting events are the feed's shared objects, a pointer each.
import type { Database } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import type { LiveFeedObserver } from '../observability/metrics.ts';
import { databaseAnnouncements, LIVE_CHANNEL, redisAnnouncements } from './announcements.ts';

export type LiveTopic = 'inventory_level.updated' | 'return.created' | 'return.updated';

/** An announcement: the event's ids and what subscribers filter on, never its data. */
export interface LiveEvent {
  id: string;
  storeId: string;
  topic: LiveTopic;
  subjectId: string;
  /** A return's status after the change. */
  status: string | null;
  locationId: string | null;
  productId: string | null;
  /** The store owning the level's location: a fulfillment service sees the levels at its locations. */
  locationStoreId: string | null;
}

export interface LiveSubscriber {
  /** The viewer's store: it hears events of that store and levels at that store's locations. */
  storeId: string;
  accepts(event: LiveEvent): boolean;
  /** Called once when the subscriber is dropped for falling behind (see above); its stream then ends. */
  onOverflow(reason: DropReason): void;
}

/** Why a subscriber was dropped: its client stopped reading, the service fell far behind, or announcements were lost. */
export type DropReason = 'slow' | 'lagging' | 'feed lost';


export interface LiveFeed {
  /** Settles once this instance listens: a stream opened after it misses no committed change. */
  ready: Promise<void>;
  /** The subscriber's events, oldest first; ends when the subscriber overflows or the feed closes. */
  subscribe(subscriber: LiveSubscriber): AsyncIterableIterator<LiveEvent>;
  /** Ends every open stream (each client sees its subscription complete) and stops listening. */
  close(): Promise<void>;
}

/** What a streamed request's GraphQL context holds to subscribe (GraphQLContext.live). */
export interface LiveAccess {
  feed: LiveFeed;
  /** Cuts this request's connection: its client stopped reading events, or the service fell too far behind to catch up. */
  disconnectSlowReader(reason: DropReason): void;
}

export interface LiveFeedOptions {
  db: Database;
  logger: Logger;
  observer?: LiveFeedObserver;
  /** Events a subscriber may have waiting while its client takes none before it is dropped. */
  maxPending?: number;
  /** On PostgreSQL, fan announcements out through Redis (announcements.ts) instead of every instance listening. */
  redisUrl?: string;
}

export const DEFAULT_MAX_PENDING = 256;
/** A stream that asked for no event this long is held up by its client (the socket is full), not by the service. */
const STALLED_MS = 1_000;
const LAGGING_FACTOR = 16;

interface Queue {
  subscriber: LiveSubscriber;
  push(event: LiveEvent): void;
  end(): void;
}

const TOPICS: ReadonlySet<string> = new Set<LiveTopic>(['inventory_level.updated', 'return.created', 'return.updated']);

/** Reads an announcement; anything else on the channel is ignored (a newer trigger's fields are extra). */
function parseAnnouncement(payload: string): LiveEvent | undefined {
  let raw: Partial<Record<keyof LiveEvent, unknown>>;
  try {
    raw = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof raw.id !== 'string' || typeof raw.storeId !== 'string' || typeof raw.subjectId !== 'string' || !TOPICS.has(raw.topic as string)) return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: raw.id,
    storeId: raw.storeId,
    topic: raw.topic as LiveTopic,
    subjectId: raw.subjectId,
    status: text(raw.status),
    locationId: text(raw.locationId),
    productId: text(raw.productId),
    locationStoreId: text(raw.locationStoreId),
  };
}

export function createLiveFeed({ db, logger, observer, maxPending = DEFAULT_MAX_PENDING, redisUrl }: LiveFeedOptions): LiveFeed {
  const byStore = new Map<string, Set<Queue>>();
  let closed = false;

  const endAll = () => {
    for (const queues of byStore.values()) for (const queue of [...queues]) queue.end();
  };

  const deliver = (event: LiveEvent) => {
    const stores = event.locationStoreId && event.locationStoreId !== event.storeId ? [event.storeId, event.locationStoreId] : [event.storeId];
    for (const storeId of stores) {
      const queues = byStore.get(storeId);
      if (!queues) continue;
      for (const queue of queues) if (queue.subscriber.accepts(event)) queue.push(event);
    }
  };

  const handlers = {
    announce(payload: string) {
      const event = parseAnnouncement(payload);
      if (event) deliver(event);
      else logger.warn('ignored a malformed live announcement', { channel: LIVE_CHANNEL, payload: payload.slice(0, 200) });
    },
    // Subscribers are ended so that their clients subscribe again and read what they missed, instead of waiting silently.
    gap(reason: string) {
      let dropped = 0;
      for (const queues of byStore.values()) dropped += queues.size;
      if (dropped === 0) return;
      logger.warn('live announcements may have been missed; ending open subscriptions', { reason, subscriptions: dropped });
      for (let i = 0; i < dropped; i++) observer?.subscriberDropped('feed lost');
      endAll();
    },
  };
  const announcements = redisUrl && db.kind === 'postgresql' ? redisAnnouncements(db, redisUrl, handlers, logger) : databaseAnnouncements(db, handlers);

  function subscribe(subscriber: LiveSubscriber): AsyncIterableIterator<LiveEvent> {
    const pending: LiveEvent[] = [];
    let waiting: ((result: IteratorResult<LiveEvent>) => void) | undefined;
    let lastAsked = performance.now();
    let ended = closed;
    const finish = () => {
      if (ended) return;
      ended = true;
      const queues = byStore.get(subscriber.storeId);
      queues?.delete(queue);
      if (queues?.size === 0) byStore.delete(subscriber.storeId);
      observer?.subscriptionClosed();
      pending.length = 0;
      waiting?.({ done: true, value: undefined });
      waiting = undefined;
    };
    const queue: Queue = {
      subscriber,
      push(event) {
        if (waiting) {
          const resolve = waiting;
          waiting = undefined;
          observer?.eventSent();
          resolve({ done: false, value: event });
          return;
        }
        if (pending.length >= maxPending) {
          const reason = performance.now() - lastAsked >= STALLED_MS ? 'slow' : pending.length >= maxPending * LAGGING_FACTOR ? 'lagging' : undefined;
          if (reason) {
            observer?.subscriberDropped(reason);
            finish();
            subscriber.onOverflow(reason);
            return;
          }
        }
        pending.push(event);
      },
      end: finish,
    };
    if (!ended) {
      let queues = byStore.get(subscriber.storeId);
      if (!queues) byStore.set(subscriber.storeId, (queues = new Set()));
      queues.add(queue);
      observer?.subscriptionOpened();
    }
    return {
      next() {
        lastAsked = performance.now();
        const event = pending.shift();
        if (event) {
          observer?.eventSent();
          return Promise.resolve({ done: false, value: event });
        }
        if (ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve) => (waiting = resolve));
      },
      return() {
        finish();
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  return {
    ready: announcements.ready,
    subscribe,
    async close() {
      closed = true;
      endAll();
      await announcements.close();
    },
  };
}
