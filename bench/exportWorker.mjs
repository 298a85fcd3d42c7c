// The export bench's client, in a process of its own (so its reading costs the service
// nothing): one GET of an export, its body read as it arrives and counted, never kept.
// Reads { url, headers } on stdin; writes { status, rows, bytes, firstByteMs, ms } on stdout.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, headers } = JSON.parse(input);

const started = performance.now();
const response = await fetch(url, { headers });
let firstByteMs;
let bytes = 0;
let lines = 0;
for await (const chunk of response.body) {
  firstByteMs ??= performance.now() - started;
  bytes += chunk.length;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
}
const ms = performance.now() - started;
const csv = /^text\/csv/.test(response.headers.get('content-type') ?? '');
// A CSV's first line is its header; the bench's rows hold no line break of their own.
process.stdout.write(JSON.stringify({ status: response.status, rows: csv ? lines - 1 : lines, bytes, firstByteMs, ms }));
