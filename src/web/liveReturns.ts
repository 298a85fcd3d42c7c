// The returns list's live updates: GET /admin/returns/events streams the signed-in store's
// `returnUpdated` subscription as server-sent events, and the list page's script
// (live-returns.js) reads the page again when one comes. A stream holds one of the merchant
// user's slots (config.subscriptions.perClient, as an API client's on /v3/graphql) until it
// ends, a reader left behind is cut, never buffered for, and a session that ended (signed
// out, expired) hears nothing more.
import fs from 'node:fs';
import type { AuthContext } from '../auth/authenticate.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import type { DoorRequest, DoorResponse } from '../http/door.ts';
import { runSubscription, type OperationOutcome } from '../schema/execute.ts';
import { html } from './html.ts';
import { page, SECURITY_HEADERS } from './http.ts';
import { ops } from './operations.ts';
import { openStreamsUpTo, streamAccess } from '../live/openStreams.ts';

export const RETURN_EVENTS_PATH = '/admin/returns/events';
export const LIVE_RETURNS_SCRIPT_PATH = '/admin/live-returns.js';
export const LIVE_RETURNS_SCRIPT = fs.readFileSync(new URL('./live-returns.js', import.meta.url));

const HEARTBEAT = ':\n\n';
/** A comment this long after the last bytes keeps proxies from closing an idle stream; short under test, as yoga's. */
const HEARTBEAT_MS = process.env.NODE_ENV === 'test' ? 300 : 12_000;

function eventOf(outcome: OperationOutcome<unknown>): string {
  const result = outcome.ok
    ? { data: outcome.data }
    : { errors: [{ message: outcome.error.code === 'INTERNAL_SERVER_ERROR' ? 'Something went wrong.' : outcome.error.message, extensions: { code: outcome.error.code } }] };
  return `event: next\ndata: ${JSON.stringify(result)}\n\n`;
}

/**
 * The subscription's events as event-stream text, with a heartbeat whenever none came for
 * `heartbeatMs`; an event that comes when `stillSignedIn` says no ends the stream instead.
 * However the stream ends (the subscription completed, failed, or the server returned it
 * because the client left, even before the first chunk was asked for), the subscription is
 * ended and `onEnd` runs once.
 */
function eventStreamText(
  events: AsyncIterableIterator<OperationOutcome<unknown>>,
  heartbeatMs: number,
  stillSignedIn: () => Promise<boolean>,
  onEnd: () => void,
): AsyncIterableIterator<string> {
  let started = false;
  let ended = false;
  // An event asked for while a heartbeat went out instead: the next chunk waits for it again.
  let pending: Promise<IteratorResult<OperationOutcome<unknown>>> | undefined;
  const end = async (): Promise<IteratorReturnResult<undefined>> => {
    if (!ended) {
      ended = true;
      onEnd();
      pending?.catch(() => undefined);
      await events.return!();
    }
    return { done: true, value: undefined };
  };
  const text: AsyncIterableIterator<string> = {
    async next() {
      if (ended) return { done: true, value: undefined };
      // The first bytes go out at once: a browser reports the stream open only when some come.
      if (!started) {
        started = true;
        return { done: false, value: HEARTBEAT };
      }
      pending ??= events.next();
      let timer: NodeJS.Timeout | undefined;
      const beat = new Promise<null>((resolve) => (timer = setTimeout(resolve, heartbeatMs, null)));
      let next: IteratorResult<OperationOutcome<unknown>> | null;
      let admitted = true;
      try {
        next = await Promise.race([pending, beat]);
        if (next && !next.done) admitted = await stillSignedIn();
      } catch (error) {
        await end();
        throw error;
      } finally {
        clearTimeout(timer);
      }
      if (ended) return { done: true, value: undefined };
      if (next === null) return { done: false, value: HEARTBEAT };
      pending = undefined;
      if (!admitted) return end();
      if (!next.done) return { done: false, value: eventOf(next.value) };
      await end();
      return { done: false, value: 'event: complete\ndata:\n\n' };
    },
    return: end,
    [Symbol.asyncIterator]: () => text,
  };
  return text;
}

export function createReturnEvents({ logger, config, live, newContext }: DoorDeps) {
  const openStreams = openStreamsUpTo(config.subscriptions.perClient);

  /** The stream for a signed-in merchant user (`auth` as the dashboard's pages get it), as long as `stillSignedIn`. */
  return async function returnEvents(request: DoorRequest, auth: AuthContext, stillSignedIn: () => Promise<boolean>): Promise<DoorResponse> {
    const userId = auth.client.id;
    const slot = openStreams.take(userId);
    if ('refused' in slot) {
      return page(429, { title: 'Too many live pages', body: html`<p>${slot.refused} pages of this user are already following changes; close one first.</p>` }, { 'retry-after': '1' });
    }
    const { access, cut } = streamAccess(live, logger, { requestId: request.requestId, userId });
    const ctx = newContext({ auth, door: 'web', requestId: request.requestId, live: access });
    let subscribed;
    try {
      subscribed = await runSubscription(ops.returnUpdates, {}, ctx);
    } catch (error) {
      slot.release();
      throw error;
    }
    if (!subscribed.ok) {
      slot.release();
      const unavailable = subscribed.error.code === 'UNAVAILABLE';
      return page(unavailable ? 503 : 500, { title: 'Error', body: html`<p>Live updates are unavailable.</p>` }, unavailable ? { 'retry-after': '1' } : {});
    }
    return {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' },
      stream: eventStreamText(subscribed.events, HEARTBEAT_MS, stillSignedIn, slot.release),
      abort: cut,
    };
  };
}
