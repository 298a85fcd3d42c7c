// Step 4: the body read once, for every step and door after, within MAX_BODY_BYTES and decoded
// from the Content-Encoding it was sent in (compression.ts). A body over the limit, or in a
// coding not read, is refused here in the door's format; the connection of a too-large one is
// closed, since the rest of it is not read.
import type http from 'node:http';
import { decodeRequestBody, RequestBodyRefused } from '../compression.ts';
import type { Step } from '../step.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export const bodyStep: Step = async (exchange, next) => {
  const { door, request } = exchange;
  try {
    const received = await decodeRequestBody(request.headers, await readBody(exchange.incoming), MAX_BODY_BYTES);
    exchange.request = { ...request, ...received };
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      exchange.outgoing.setHeader('connection', 'close');
      return door.reject(413, `request body exceeds ${MAX_BODY_BYTES} bytes`, request);
    }
    if (error instanceof RequestBodyRefused) {
      const rejected = door.reject(error.status, error.message, request);
      return { ...rejected, headers: { ...rejected.headers, ...error.headers } };
    }
    throw error;
  }
  return next();
};
