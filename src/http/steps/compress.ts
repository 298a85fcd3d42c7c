// Step 3: the answer in the coding the client asked for (compression.ts decides which, and the
// headers that go with it). A whole body is compressed off the event loop; a stream chunk by
// chunk, each flushed, so the client decodes every page or event as it arrives.
import { answerEncoding, chunkEncoder, compressBody, type ContentCoding } from '../compression.ts';
import type { DoorRequest, DoorResponse } from '../door.ts';
import type { Step } from '../step.ts';

export const compressStep: Step = async (exchange, next) => inRequestedCoding(exchange.request, await next());

/** The answer in the coding this request asked for. */
export async function inRequestedCoding(request: Pick<DoorRequest, 'method' | 'headers'>, response: DoorResponse): Promise<DoorResponse> {
  const { headers, coding } = answerEncoding(request, response);
  if (!coding) return { ...response, headers };
  if (response.stream) return { ...response, headers, stream: compressedStream(response.stream, coding) };
  const body = await compressBody(response.body!, coding);
  return { ...response, headers: { ...headers, 'content-length': String(body.length) }, body };
};

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The stream's chunks compressed. Not a generator: the writer ends the iteration when the
 * client leaves, possibly while a chunk is awaited (a subscription's next event may be hours
 * away), and that must reach the stream at once, not after the chunk it waits for.
 */
function compressedStream(stream: AsyncIterable<string | Buffer>, coding: ContentCoding): AsyncIterableIterator<Buffer> {
  const chunks = stream[Symbol.asyncIterator]();
  const encoder = chunkEncoder(coding);
  let state: 'open' | 'ended' | 'done' = 'open';
  const finish = () => {
    if (state === 'done') return;
    state = 'done';
    encoder.destroy();
  };
  const compressed: AsyncIterableIterator<Buffer> = {
    async next() {
      if (state !== 'open') {
        finish();
        return DONE;
      }
      try {
        const chunk = await chunks.next();
        if (state !== 'open') return DONE;
        if (chunk.done) {
          state = 'ended';
          return { done: false, value: await encoder.end() };
        }
        return { done: false, value: await encoder.write(chunk.value) };
      } catch (error) {
        finish();
        throw error;
      }
    },
    async return() {
      finish();
      await chunks.return?.();
      return DONE;
    },
    [Symbol.asyncIterator]: () => compressed,
  };
  return compressed;
}
