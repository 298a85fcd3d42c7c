// The load generator's own process (bench/load.ts starts it): autocannon with the options
// given as JSON on stdin, cycling through `bodies` when there are several; prints its result as JSON.
import autocannon from 'autocannon';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, method, headers, bodies, connections, duration } = JSON.parse(input);
let next = 0;
const result = await autocannon({
  url,
  method,
  headers,
  connections,
  duration,
  body: bodies.length === 1 ? bodies[0] : undefined,
  requests: bodies.length > 1 ? [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }] : undefined,
});
process.stdout.write(JSON.stringify(result));
