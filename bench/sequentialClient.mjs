// The client process of the benches that time requests one at a time (search, overview, returns
// queue, the v3 graph; one process per run): one request after another on one kept-alive loopback connection, `warmup` of
// them first, then `count` timed ones (from the request's start to its last byte), each
// checked: HTTP 200 and, for GraphQL, no `errors` (or, given `refusal`, only errors of that code). Stops early at `maxSeconds` of timed
// requests. An answer the server compressed (the request's Accept-Encoding) is decoded after its
// last byte, as a client would, outside the time. Options as JSON on stdin; prints {latencies} or
// {error} as JSON, with `answer`, the last answer's text, when asked (`lastAnswer`: the bench checks it).
import http from 'node:http';
import zlib from 'node:zlib';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, method, headers, body, warmup, count, maxSeconds, graphql, refusal, lastAnswer } = JSON.parse(input);

const target = new URL(url);
if (target.hostname !== '127.0.0.1') throw new Error(`loopback only, not ${target.hostname}`);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const TIMEOUT_MS = 60_000;

function once() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(target, { method, headers, agent, timeout: TIMEOUT_MS }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const ms = performance.now() - started;
        resolve({ ms, status: res.statusCode, encoding: res.headers['content-encoding'], text: decoded(res.headers['content-encoding'], Buffer.concat(chunks)) });
      });
      res.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

function decoded(encoding, bytes) {
  if (encoding === 'br') return zlib.brotliDecompressSync(bytes).toString();
  if (encoding === 'gzip') return zlib.gunzipSync(bytes).toString();
  if (encoding === 'deflate') return zlib.inflateSync(bytes).toString();
  return bytes.toString();
}

function problem(answer) {
  if (answer.status !== 200) return `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (graphql) {
    const parsed = JSON.parse(answer.text);
    const refused = refusal && parsed.errors?.every((error) => error.extensions?.code === refusal);
    if (parsed.errors && !refused) return `errors: ${JSON.stringify(parsed.errors).slice(0, 300)}`;
  }
  return undefined;
}

const latencies = [];
let error;
let timedSince;
let answer;
for (let i = 0; i < warmup + count; i++) {
  answer = await once();
  error = problem(answer);
  if (error) break;
  if (i < warmup) continue;
  timedSince ??= performance.now();
  latencies.push(answer.ms);
  if (performance.now() - timedSince > maxSeconds * 1000) break;
}
agent.destroy();
process.stdout.write(
  JSON.stringify(error ? { error } : lastAnswer ? { latencies, answer: answer && { text: answer.text, encoding: answer.encoding ?? 'identity' } } : { latencies }),
);
