// Compressed answers, negotiated by Accept-Encoding (RFC 9110 §12.5.3), with Node's zlib:
// brotli or gzip, for every door, since every answer passes the pipeline's compress step (steps/compress.ts); and
// compressed request bodies (Content-Encoding, §8.4) decoded before any door reads them.
// A whole body is compressed at once; a streamed one (streamedAnswer.ts, event streams) chunk
// by chunk, each chunk flushed, so the client can decode every page or event as it arrives and
// the encoder holds no more than one chunk.
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import type { IncomingHttpHeaders } from 'node:http';
import type { DoorResponse } from './door.ts';

export type ContentCoding = 'br' | 'gzip';

/**
 * Below this a whole body goes out as it is. An answer under 1 KiB fits in one TCP segment
 * (1,460 bytes) compressed or not, so compressing saves the client no round trip and no
 * packet, while the encoder's set-up (a zlib state of about 256 KiB) costs the server more
 * than the bytes it saves. Streamed answers are compressed whatever their first chunk: a
 * stream is a list whose length the client decides (or an event stream), rarely small.
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Brotli quality 4, chosen for the service's CPU by `npm run bench -- http` (the REST returns
 * page of 20, compressed alone at each quality): 160 to 260 µs a 50 KB page, no more than
 * gzip's default level, for a smaller answer (6.4% of the page against gzip's 7.4%). Quality 5
 * saves 3 to 8% more bytes for up to three times the CPU (on that page, the v2.2 OpenAPI
 * document, the SDL and a page of varied data); 11, the smallest, takes 80 to 100 ms a page.
 * Quality 1 is three to four times cheaper but 7 to 13% bigger.
 */
export const BROTLI_QUALITY = 4;

/**
 * A streamed answer's brotli window: 256 KiB, about three pages of a list, so JSON keys
 * repeat within reach while an encoder of a 200 MB answer holds no more than that (the
 * default 4 MiB window would grow to its full size over a long answer, per connection).
 */
const BROTLI_STREAM_WINDOW_BITS = 18;

const BROTLI_BASE = { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT };

/** Text compresses; images, archives and already-encoded media do not. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:[\w.-]+\+)?(?:json|xml|javascript|x-ndjson|graphql)\b|image\/svg\+xml)/i;

/** Statuses that never have content (RFC 9110 §6.4.1). */
const WITHOUT_CONTENT = new Set([204, 304]);

interface Acceptance {
  /** The coding to use, the client's most preferred of the ones this server has, br on a tie. */
  coding?: ContentCoding;
  /** The client refused an answer without coding (`identity;q=0`, or `*;q=0` without an `identity` entry). */
  identityRefused: boolean;
}

const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * Reads Accept-Encoding (RFC 9110 §12.5.3). No header, or an empty one, asks for no coding
 * (the RFC lets a server pick any coding without the header; this one compresses only for a
 * client that asked). `*` stands for every coding not listed, `x-gzip` for gzip (§8.4.1.3);
 * an entry with a malformed weight is ignored. Without an explicit weight, identity is the
 * last resort: chosen only when no listed coding is acceptable.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Acceptance {
  if (!acceptEncoding?.trim()) return { identityRefused: false };
  const weights = new Map<string, number>();
  for (const entry of acceptEncoding.split(',')) {
    const [name, ...parameters] = entry.split(';').map((part) => part.trim());
    if (!name) continue;
    let weight = 1;
    const q = parameters.find((parameter) => /^q=/i.test(parameter));
    if (q !== undefined) {
      const match = WEIGHT.exec(q);
      if (!match) continue;
      weight = Number(match[1]);
    }
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    weights.set(coding, Math.max(weight, weights.get(coding) ?? 0));
  }
  const weightOf = (coding: string) => weights.get(coding) ?? weights.get('*');
  const identity = weights.get('identity') ?? weights.get('*');
  let best: { coding: ContentCoding; weight: number } | undefined;
  for (const coding of ['br', 'gzip'] as const) {
    const weight = weightOf(coding) ?? 0;
    if (weight > 0 && weight > (best?.weight ?? 0)) best = { coding, weight };
  }
  const identityRefused = identity === 0;
  if (!best || (identity !== undefined && identity > best.weight)) return { identityRefused };
  return { coding: best.coding, identityRefused };
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/** `headers` without `name` (in any case), with `value` when given. */
function withHeader(headers: Record<string, string>, name: string, value?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, existing] of Object.entries(headers)) if (key.toLowerCase() !== name) out[key] = existing;
  if (value !== undefined) out[name] = value;
  return out;
}

/** Vary with Accept-Encoding added to whatever it named already. */
function varyingByEncoding(headers: Record<string, string>): Record<string, string> {
  const vary = headerValue(headers, 'vary');
  if (vary === undefined) return { ...headers, vary: 'Accept-Encoding' };
  const names = vary.split(',').map((name) => name.trim().toLowerCase());
  if (names.includes('*') || names.includes('accept-encoding')) return headers;
  return withHeader(headers, 'vary', `${vary}, Accept-Encoding`);
}

export interface AnswerEncoding {
  headers: Record<string, string>;
  /** The coding the body (or each chunk of the stream) is written in; absent, it goes out as it is. */
  coding?: ContentCoding;
}

/**
 * How an answer goes out to this request: which coding, and its headers (Content-Encoding,
 * Vary, no stale Content-Length). Vary goes on every answer of a compressible type, compressed
 * or not: which coding the same resource gets depends on the request (and on the answer's
 * size, which changes as the data does). A 304 carries it too, as its 200 would (RFC 9110
 * §15.4.5). Nothing is compressed for HEAD (no body), for statuses without content, for an
 * answer that has a Content-Encoding already, or for a client that did not ask.
 */
export function answerEncoding(request: { method?: string; headers: IncomingHttpHeaders }, response: DoorResponse): AnswerEncoding {
  // Yoga marks its event streams `Content-Encoding: none` (no such coding exists) so that proxy
  // middleware leaves them alone; flushed event by event, they compress like any stream.
  const declared = headerValue(response.headers ?? {}, 'content-encoding');
  const headers = declared !== undefined && /^(none|identity)$/i.test(declared) ? withHeader(response.headers ?? {}, 'content-encoding') : (response.headers ?? {});
  if (response.status === 304) return { headers: varyingByEncoding(headers) };
  if (WITHOUT_CONTENT.has(response.status) || response.status < 200 || headerValue(headers, 'content-encoding') !== undefined) return { headers };
  if (!COMPRESSIBLE.test(headerValue(headers, 'content-type') ?? '')) return { headers };
  const varied = varyingByEncoding(headers);
  const accepted = request.headers['accept-encoding'];
  const { coding, identityRefused } = negotiateEncoding(Array.isArray(accepted) ? accepted.join(',') : accepted);
  if (!coding || request.method === 'HEAD') return { headers: varied };
  if (!response.stream) {
    const size = Buffer.byteLength(response.body ?? '');
    if (size === 0 || (size < COMPRESSION_THRESHOLD_BYTES && !identityRefused)) return { headers: varied };
  }
  return { headers: { ...withHeader(varied, 'content-length'), 'content-encoding': coding }, coding };
}

const brotliCompress = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** A whole body compressed, off the event loop (zlib's thread pool). */
export function compressBody(body: string | Buffer, coding: ContentCoding): Promise<Buffer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (coding === 'gzip') return gzip(bytes);
  return brotliCompress(bytes, { params: { ...BROTLI_BASE, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

/** Compresses a streamed answer chunk by chunk. */
export interface ChunkEncoder {
  /** The chunk compressed and flushed: with what came before, the client can decode all of it now. */
  write(chunk: string | Buffer): Promise<Buffer>;
  /** The bytes that end the encoding. */
  end(): Promise<Buffer>;
  /** Frees the encoder's memory (the answer ended one way or another). */
  destroy(): void;
}

export function chunkEncoder(coding: ContentCoding): ChunkEncoder {
  const encoder =
    coding === 'br'
      ? zlib.createBrotliCompress({ params: { ...BROTLI_BASE, [zlib.constants.BROTLI_PARAM_LGWIN]: BROTLI_STREAM_WINDOW_BITS } })
      : zlib.createGzip();
  // A sync flush (not a full one) keeps the window, so a page still refers to the ones before.
  const flushKind = coding === 'br' ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
  let output: Buffer[] = [];
  let failed: ((error: Error) => void) | undefined;
  // zlib emits what a flush produced before it calls the flush's callback.
  encoder.on('data', (bytes: Buffer) => output.push(bytes));
  encoder.on('error', (error) => failed?.(error));
  const taken = () => {
    const bytes = output.length === 1 ? output[0] : Buffer.concat(output);
    output = [];
    return bytes;
  };
  return {
    write: (chunk) =>
      new Promise((resolve, reject) => {
        failed = reject;
        encoder.write(chunk);
        encoder.flush(flushKind, () => resolve(taken()));
      }),
    end: () =>
      new Promise((resolve, reject) => {
        failed = reject;
        encoder.once('end', () => resolve(taken()));
        encoder.end();
      }),
    destroy: () => encoder.destroy(),
  };
}

/** The codings a request body may come in, as a 415 names them in Accept-Encoding (RFC 9110 §15.5.16). */
export const REQUEST_BODY_CODINGS = 'gzip, deflate, br';

const decoders: Record<string, (bytes: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** A request body refused while decoding it, with the status and headers of the answer. */
export class RequestBodyRefused extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The request as the doors read it: its body decoded from every Content-Encoding listed (the
 * last applied first), and headers that no longer name a coding. Decoded, the body is held to
 * `limit` as it is when sent as is: inflating stops there (zlib's maxOutputLength), so a small
 * body that inflates to gigabytes costs no more than `limit` of memory.
 */
export async function decodeRequestBody(headers: IncomingHttpHeaders, body: Buffer, limit: number): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  const codings = (headers['content-encoding'] ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return { headers, body };
  const unknown = codings.find((coding) => !(coding in decoders));
  if (unknown !== undefined) {
    throw new RequestBodyRefused(415, `request bodies in Content-Encoding "${unknown}" are not read; send ${REQUEST_BODY_CODINGS} or none`, { 'accept-encoding': REQUEST_BODY_CODINGS });
  }
  let decoded = body;
  for (const coding of codings.reverse()) {
    try {
      decoded = await decoders[coding](decoded, { maxOutputLength: limit });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new RequestBodyRefused(413, `request body exceeds ${limit} bytes once decoded`);
      throw new RequestBodyRefused(400, `request body is not valid ${coding}: ${(error as Error).message}`);
    }
  }
  const { 'content-encoding': _coding, ...rest } = headers;
  return { headers: { ...rest, 'content-length': String(decoded.length) }, body: decoded };
}
