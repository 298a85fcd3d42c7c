// What a door needs to serve subscriptions on an event stream: how many streams each caller
// (an API client, a dashboard user) holds open on this instance, so that one caller cannot
// hold every subscription the instance can serve, and the access a stream's context holds.
import type { Logger } from '../observability/logger.ts';
import type { LiveAccess, LiveFeed } from './feed.ts';

export interface OpenStreams {
  /** Takes a slot for `caller`: the release to call once when its stream ends, or the count it already holds when at the limit. */
  take(caller: string): { release: () => void } | { refused: number };
}

export function openStreamsUpTo(limit: number): OpenStreams {
  const held = new Map<string, number>();
  return {
    take(caller) {
      const open = held.get(caller) ?? 0;
      if (open >= limit) return { refused: open };
      held.set(caller, open + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const left = (held.get(caller) ?? 1) - 1;
          if (left > 0) held.set(caller, left);
          else held.delete(caller);
        },
      };
    },
  };
}

/**
 * The feed for one streamed request, and the signal that cuts its connection (DoorResponse.abort)
 * when the feed drops it; `who` names the request in the log.
 */
export function streamAccess(feed: LiveFeed, logger: Logger, who: Record<string, string>): { access: LiveAccess; cut: AbortSignal } {
  const cut = new AbortController();
  const access: LiveAccess = {
    feed,
    disconnectSlowReader(reason) {
      logger.warn(
        reason === 'slow' ? 'event stream cut: its client stopped reading events' : 'event stream cut: the service fell too far behind to catch up',
        { ...who, reason },
      );
      cut.abort();
    },
  };
  return { access, cut: cut.signal };
}
