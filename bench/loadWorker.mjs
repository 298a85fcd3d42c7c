// The load generator's own process (bench/load.ts starts it): autocannon with the options
// given as JSON on stdin, cycling through `bodies` when there are several; prints its result as JSON.
// `{{unique}}` in a body becomes a value no other request of any run sends (a new order's id).
import autocannon from 'autocannon';

const UNIQUE = '{{unique}}';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, method, headers, bodies, connections, duration } = JSON.parse(input);
let next = 0;
const varying = bodies.length > 1 || bodies.some((body) => body.includes(UNIQUE));
const result = await autocannon({
  url,
  method,
  headers,
  connections,
  duration,
  body: varying ? undefined : bodies[0],
  requests: varying
    ? [{ setupRequest: (request) => ({ ...request, body: bodies[next % bodies.length].replaceAll(UNIQUE, `${process.pid}-${next++}`) }) }]
    : undefined,
});
process.stdout.write(JSON.stringify(result));
