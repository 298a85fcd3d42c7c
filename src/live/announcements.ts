// Where an instance hears the announcements of committed changes (channel LIVE_CHANNEL,
// NOTIFYed by the transaction that writes the event; see the migration live_event_notify).
//
// - From the database (the default, and always on PGlite): each instance LISTENs on a
//   connection of its own, and PostgreSQL sends every announcement to each of them.
// - Through Redis (REDIS_URL, on PostgreSQL): one instance at a time relays, LISTENing
//   exclusively (an advisory lock) and publishing each announcement to a Redis channel
//   that every instance subscribes to. The database then sends each announcement once,
//   whatever the number of instances, and Redis fans it out. When the relay goes, another
//   instance takes the lock within seconds and says so on the channel; what was committed
//   in between was announced to no one, so every instance reports a gap.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Database } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';

export const LIVE_CHANNEL = 'live_events';

export interface AnnouncementHandlers {
  announce(payload: string): void;
  /** Announcements may have been missed since the last one (a connection dropped, the relay changed). */
  gap(reason: string): void;
}

export interface Announcements {
  /** Settles once this instance hears every announcement committed from now on. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function databaseAnnouncements(db: Database, handlers: AnnouncementHandlers): Announcements {
  let listening = false;
  const unlisten = db.listen(LIVE_CHANNEL, {
    onNotify: handlers.announce,
    onState(state) {
      if (!state && listening) handlers.gap('the database connection that listens was lost');
      listening = state;
    },
  });
  return {
    ready: unlisten.then(() => undefined),
    close: async () => (await unlisten)(),
  };
}

/**
 * A relay's first message on the channel: it took over (or listens again after losing its
 * connection), and whatever was committed while no one relayed reached no instance, itself included.
 */
const RELAY_STARTED = JSON.stringify({ relayStarted: true });

/** One Redis channel per database: instances on the same database share it, others never hear it. */
function redisChannelOf(db: Database): string {
  const url = new URL(db.url);
  const database = `${url.hostname}:${url.port || 5432}${url.pathname}`;
  return `${LIVE_CHANNEL}:${createHash('sha256').update(database).digest('hex').slice(0, 16)}`;
}

export function redisAnnouncements(db: Database, redisUrl: string, handlers: AnnouncementHandlers, logger: Logger): Announcements {
  const channel = redisChannelOf(db);
  const subscriber = new Redis(redisUrl, { connectTimeout: 2_000 });
  const publisher = new Redis(redisUrl, { connectTimeout: 2_000, maxRetriesPerRequest: 1 });
  let subscribed = false;
  // ioredis reports connection trouble as events; it reconnects and subscribes again itself.
  subscriber.on('error', () => undefined);
  publisher.on('error', () => undefined);
  subscriber.on('close', () => {
    if (subscribed) handlers.gap('the Redis connection that subscribes was lost');
    subscribed = false;
  });
  subscriber.on('ready', () => (subscribed = true));
  subscriber.on('message', (from: string, payload: string) => {
    if (from !== channel) return;
    if (payload === RELAY_STARTED) handlers.gap('an instance (re)started relaying announcements');
    else handlers.announce(payload);
  });
  const publish = (payload: string) =>
    void publisher.publish(channel, payload).catch((error: unknown) => logger.warn('could not relay a live announcement to Redis', { error }));
  const relaying = db.listen(
    LIVE_CHANNEL,
    {
      onNotify: publish,
      onState(state) {
        if (state) {
          logger.info('relaying live announcements from the database to Redis', { channel });
          publish(RELAY_STARTED);
        }
      },
    },
    { exclusive: true },
  );
  const ready = subscriber.subscribe(channel).then(() => {
    subscribed = true;
  });
  return {
    ready,
    async close() {
      await (await relaying)();
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
