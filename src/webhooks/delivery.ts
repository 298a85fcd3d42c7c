// One delivery attempt: POST the event to the subscriber, bounded by a deadline.
//
// This is the delivery-time half of the SSRF guard. Before every attempt the host is
// resolved and checked again (a DNS answer may have changed since the subscription
// was written), and the socket connects to those checked addresses only: its lookup
// hands back the checked answer instead of asking DNS a second time. Redirects are
// never followed; a 3xx answer is a failed attempt.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isDomainError } from '../domain/errors.ts';
import { checkWebhookTarget, type AddressPolicy, type ResolvedAddress } from '../domain/webhooks.ts';

export interface WebhookRequest {
  url: string;
  /** Bearer token for the subscriber; null sends no Authorization header. */
  secret: string | null;
  eventId: string;
  /** The JSON body, already serialised. */
  body: string;
}

export interface AttemptOutcome {
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
}

/** The attempt was cut short because the dispatcher is stopping; it is not counted. */
export class AttemptAborted extends Error {}

export interface Sender {
  send(request: WebhookRequest, signal: AbortSignal): Promise<AttemptOutcome>;
  close(): void;
}

const ERROR_SNIPPET_BYTES = 300;

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = family ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no checked IPv${family} address`);
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  };
}

function outcomeOf(status: number, location: string | undefined, body: string): AttemptOutcome {
  if (status >= 200 && status < 300) return { delivered: true, responseStatus: status, error: null };
  if (status >= 300 && status < 400) {
    return { delivered: false, responseStatus: status, error: `redirect refused (HTTP ${status}${location ? ` to ${location}` : ''})` };
  }
  const snippet = body.trim().slice(0, ERROR_SNIPPET_BYTES);
  return { delivered: false, responseStatus: status, error: `HTTP ${status}${snippet ? `: ${snippet}` : ''}` };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createSender(options: { policy: AddressPolicy; timeoutMs: number; maxSockets: number; trustedCa?: string }): Sender {
  const { policy, timeoutMs } = options;
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: options.maxSockets }),
    https: new https.Agent({ keepAlive: true, maxSockets: options.maxSockets, ...(options.trustedCa ? { ca: options.trustedCa } : {}) }),
  };

  async function attempt(request: WebhookRequest, signal: AbortSignal): Promise<AttemptOutcome> {
    let target;
    try {
      target = await raceAbort(checkWebhookTarget(request.url, policy), signal);
    } catch (error) {
      if (isDomainError(error)) return { delivered: false, responseStatus: null, error: `refused: ${error.message}` };
      throw error;
    }
    const secure = target.url.protocol === 'https:';
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(request.body),
      'webhook-id': request.eventId,
      'user-agent': 'commerce-backoffice-webhooks/1',
    };
    if (request.secret !== null) headers.authorization = `Bearer ${request.secret}`;
    return new Promise<AttemptOutcome>((resolve, reject) => {
      const req = (secure ? https : http).request({
        method: 'POST',
        protocol: target.url.protocol,
        hostname: target.host,
        port: target.url.port || undefined,
        path: target.url.pathname + target.url.search,
        headers,
        agent: secure ? agents.https : agents.http,
        lookup: pinnedLookup(target.addresses),
        signal,
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < ERROR_SNIPPET_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve(outcomeOf(res.statusCode ?? 0, res.headers.location, Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(request.body);
    });
  }

  return {
    async send(request, stopSignal) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([stopSignal, timeout]);
      try {
        return await attempt(request, signal);
      } catch (error) {
        if (stopSignal.aborted) throw new AttemptAborted('dispatcher stopping');
        if (timeout.aborted) return { delivered: false, responseStatus: null, error: `timed out after ${timeoutMs} ms` };
        return { delivered: false, responseStatus: null, error: (error as Error).message || String(error) };
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
