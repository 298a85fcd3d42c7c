// The subscribers' own process (bench/live.ts forks it): SUBSCRIPTIONS event streams on
// /v3/graphql over plain node:http, and beside them the floor, one pg client LISTENing on
// the channel the service's feed hears. Every arrival is stamped on the clock both
// processes share (epoch ms: performance.timeOrigin + performance.now()). Driven over IPC:
//   open    -> opens the streams and the listener, answers `opened`
//   await   -> answers `reached` once every stream and the listener have `events` events (or the time is up),
//              with when the last stream received the last of them
//   collect -> closes everything and answers `result` (receipt times as typed arrays), then exits
import http from 'node:http';
import pg from 'pg';

/** Streams waiting for their head at once: 1,000 requests in one go would all queue on the server's auth. */
const OPENING_AT_ONCE = 100;
/** The NOTIFY channel of the live_event_notify migration (src/live/announcements.ts, LIVE_CHANNEL). */
const CHANNEL = 'live_events';

const now = () => performance.timeOrigin + performance.now();

let options;
/** subscriber * events + n: when that subscriber received its n-th event (the n-th commit's); NaN until then. */
let receipts;
/** Per subscriber: events received, and the quantity the last one showed. */
let counts;
let shown;
/** When the floor's listener heard the n-th level announcement. */
let floor;
let floorCount = 0;
/** Events showing a lower quantity than the subscriber's event before: older news after newer. */
let outOfOrder = 0;
/** The n-th event showing less than the n-th commit left: a state from before its own commit. */
let stale = 0;
/** Events beyond the number committed. */
let extra = 0;
/** `next` events that were not a level (errors). */
const unexpected = [];
/** Streams that ended before `collect`: the server completed or cut them. */
let endedEarly = 0;
let closing = false;
const requests = [];
let listener;

/**
 * Every subscriber opened before the first commit and the feed sends one event per commit, in
 * commit order, so a subscriber's n-th event is the n-th commit's. Its object is read when it
 * is sent (the service shows the level as it is then), so under a backlog it may already
 * show later commits: it must show at least the n-th commit's quantity (each commit adds 1), never less than the event before.
 */
function record(subscriber, data, at) {
  let quantity;
  try {
    quantity = JSON.parse(data).data.inventoryLevelUpdated.quantity;
  } catch {
    quantity = undefined;
  }
  if (typeof quantity !== 'number') {
    if (unexpected.length < 5) unexpected.push(data.slice(0, 300));
    return;
  }
  const n = counts[subscriber];
  if (n >= options.events) {
    extra++;
    return;
  }
  if (quantity < n + 1) stale++;
  if (quantity < shown[subscriber]) outOfOrder++;
  shown[subscriber] = quantity;
  receipts[subscriber * options.events + n] = at;
  counts[subscriber] = n + 1;
}

/** One subscription: resolves with the answer's status once its head arrived, then parses `next` events as they come. */
function open(agent, subscriber) {
  const body = JSON.stringify({ query: options.query, variables: options.variables });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${options.url}/v3/graphql`,
      {
        method: 'POST',
        agent,
        headers: {
          accept: 'text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${options.secret}`,
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode, text }));
          return;
        }
        resolve({ status: 200 });
        response.setEncoding('utf8');
        let buffer = '';
        response.on('data', (chunk) => {
          // One stamp per chunk: events that came together arrived together.
          const at = now();
          buffer += chunk;
          let split;
          while ((split = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, split);
            buffer = buffer.slice(split + 2);
            let event = 'message';
            const data = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
            }
            if (event === 'next') record(subscriber, data.join('\n'), at);
          }
        });
        // 'end' and 'aborted' may both come for one stream; it counts once.
        let ended = () => {
          if (!closing) endedEarly++;
          ended = () => undefined;
        };
        response.on('end', () => ended());
        response.on('aborted', () => ended());
      },
    );
    request.on('error', (error) => (closing ? undefined : reject(error)));
    request.end(body);
    requests.push(request);
  });
}

async function openAll() {
  const { subscriptions, events } = options;
  receipts = new Float64Array(subscriptions * events).fill(Number.NaN);
  counts = new Uint32Array(subscriptions);
  shown = new Int32Array(subscriptions);
  floor = new Float64Array(events).fill(Number.NaN);

  listener = new pg.Client({ connectionString: options.databaseUrl });
  await listener.connect();
  listener.on('notification', ({ payload }) => {
    const at = now();
    // Only the level announcements: the floor counts what the subscribers are sent.
    if (JSON.parse(payload ?? '{}').topic === 'inventory_level.updated' && floorCount < events) floor[floorCount++] = at;
  });
  await listener.query(`LISTEN ${CHANNEL}`);

  // Streams hold their sockets for as long as they are open; kept-alive sockets spare the handshakes of later opens.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const statuses = {};
  const refusals = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: OPENING_AT_ONCE }, async () => {
      while (next < subscriptions) {
        const answer = await open(agent, next++);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (answer.text !== undefined && refusals.length < 3) refusals.push(`${answer.status} ${answer.text.slice(0, 300)}`);
      }
    }),
  );
  return { statuses, refusals };
}

function reached(events) {
  if (floorCount < events) return false;
  for (let i = 0; i < counts.length; i++) if (counts[i] < events) return false;
  return true;
}

async function awaitEvents(events, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!reached(events) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  // NaN when a stream lacks the event.
  let lastAt = Number.NEGATIVE_INFINITY;
  for (let subscriber = 0; subscriber < counts.length; subscriber++) lastAt = Math.max(lastAt, receipts[subscriber * options.events + events - 1]);
  return { complete: reached(events), lastAt };
}

async function collect() {
  closing = true;
  for (const request of requests) request.destroy();
  await listener.end();
  return { receipts, floor, floorCount, outOfOrder, stale, extra, unexpected, endedEarly };
}

// The parent gone (the bench failed or was interrupted), nothing is left holding the streams open.
process.on('disconnect', () => process.exit(0));
process.on('message', (message) => {
  const answer = (reply) => process.send(reply);
  const fail = (error) => answer({ type: 'failed', error: String(error?.stack ?? error) });
  if (message.type === 'open') {
    options = message;
    openAll().then((opened) => answer({ type: 'opened', ...opened }), fail);
  } else if (message.type === 'await') {
    awaitEvents(message.events, message.timeoutMs).then((reply) => answer({ type: 'reached', ...reply }), fail);
  } else if (message.type === 'collect') {
    collect().then((result) => process.send({ type: 'result', ...result }, () => process.disconnect()), fail);
  }
});
