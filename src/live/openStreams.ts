// How many event streams each caller (an API client, a dashboard user) holds open on this
// instance, so that one caller cannot hold every subscription the instance can serve.
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
