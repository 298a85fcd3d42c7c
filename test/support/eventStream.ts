// A GraphQL subscription over server-sent events, read the way a browser's fetch reads it:
// one HTTP request to /v3/graphql with `Accept: text/event-stream`, events parsed as they come.
import type { TestServer } from './server.ts';

export interface StreamEvent {
  event: string;
  data: string;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** The next `next`/`complete` event; rejects after `timeoutMs` or when the stream ends without one. */
  nextEvent(timeoutMs?: number): Promise<StreamEvent>;
  /** Resolves when the server ended the stream or cut the connection. */
  ended: Promise<'complete' | 'cut'>;
  /** Comment lines (`:`) seen so far: the server's heartbeats. */
  heartbeats(): number;
  close(): void;
}

export async function subscribe(
  server: Pick<TestServer, 'url'>,
  secret: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
  method: 'GET' | 'POST' = 'POST',
): Promise<OpenStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (secret) headers.authorization = `Bearer ${secret}`;
  let url = `${server.url}/v3/graphql`;
  let body: string | undefined;
  if (method === 'GET') url += `?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`;
  else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify({ query, variables });
  }
  const response = await fetch(url, { method, headers, body, signal: abort.signal });
  const queued: StreamEvent[] = [];
  const waiters: (() => void)[] = [];
  let comments = 0;
  let finished: 'complete' | 'cut' | undefined;
  const wake = () => waiters.splice(0).forEach((w) => w());
  const ended = (async () => {
    if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return 'complete' as const;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'complete' as const;
        buffer += value;
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments++;
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (block.split('\n').some((line) => !line.startsWith(':'))) queued.push({ event, data: data.join('\n') });
        }
        wake();
      }
    } catch {
      return 'cut' as const;
    }
  })().then((how) => {
    finished = how;
    wake();
    return how;
  });
  return {
    status: response.status,
    headers: response.headers,
    ended,
    heartbeats: () => comments,
    close: () => abort.abort(),
    async nextEvent(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = queued.shift();
        if (event) return event;
        if (finished) throw new Error(`stream ended (${finished}) with no further event`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

/** The `data` of a `next` event, parsed. */
export function payloadOf<T = Record<string, unknown>>(event: StreamEvent): { data?: T; errors?: { message: string; extensions?: { code?: string } }[] } {
  if (event.event !== 'next') throw new Error(`expected a next event, got ${event.event}: ${event.data}`);
  return JSON.parse(event.data);
}
