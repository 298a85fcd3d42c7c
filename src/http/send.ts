// Writing an answer to the socket: a whole body at once, a stream chunk by chunk as the client
// takes it. The answer arrives here already in its coding (steps/compress.ts).
import type http from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DoorResponse } from './door.ts';

/** How writing an answer ended: whole, left when the client went away, or cut off by a failing stream. */
export type Sent = { ended: 'whole' | 'client gone' } | { ended: 'failed'; error: unknown };

const WHOLE: Sent = { ended: 'whole' };

/** Writes the answer; a streamed one as the client takes it (writeStream), settling once it is written or abandoned. */
export async function send(res: http.ServerResponse, response: DoorResponse): Promise<Sent> {
  if (res.headersSent) return WHOLE;
  if (response.stream) {
    res.writeHead(response.status, response.headers);
    return writeStream(res, response.stream, response.abort);
  }
  res.writeHead(response.status, response.headers);
  res.end(response.body ?? '');
  return WHOLE;
}

/** Resolves when the client has taken what was written ('drain') or has gone ('close'). */
function drainedOrGone(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes chunk after chunk, the next one read only once the client has taken the ones before
 * and the event loop has had a turn, so memory holds about one chunk however long the answer
 * (no Content-Length: chunked) and no other request waits for more than one.
 * When the client goes away the iteration is ended, so nothing more is read for it. A chunk
 * that fails after the head went out destroys the socket: the client sees a cut-off answer,
 * never an error appended to a half-written one.
 */
async function writeStream(res: http.ServerResponse, stream: AsyncIterable<string | Buffer>, abort?: AbortSignal): Promise<Sent> {
  const chunks = stream[Symbol.asyncIterator]();
  let closed = false;
  // Ended at once, not when the next chunk comes: a subscription's next event may be hours away.
  const onClose = () => {
    closed = true;
    void chunks.return?.();
  };
  res.once('close', onClose);
  const cut = () => res.destroy();
  if (abort?.aborted) cut();
  abort?.addEventListener('abort', cut, { once: true });
  const gone = () => closed || res.destroyed;
  try {
    while (!gone()) {
      const next = await chunks.next();
      if (next.done) {
        res.end();
        return WHOLE;
      }
      if (!gone() && !res.write(next.value)) await drainedOrGone(res);
      // Whatever makes the chunks may answer without ever leaving the microtask queue (the
      // embedded PGlite does): other requests, and the client leaving, are let in between chunks.
      await nextTurn();
    }
    return { ended: 'client gone' };
  } catch (error) {
    res.destroy();
    return { ended: 'failed', error };
  } finally {
    res.off('close', onClose);
    abort?.removeEventListener('abort', cut);
    await chunks.return?.();
  }
}
