// The load generator's own process (bench/load.ts starts it): autocannon with the options
// given as JSON on stdin, cycling through `bodies` when there are several; prints its result as JSON.
// `{{unique}}` in a body or a header becomes a value no other request of any run sends (a new
// order's id, an Idempotency-Key).
import autocannon from 'autocannon';

const UNIQUE = '{{unique}}';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, method, headers, bodies, connections, duration } = JSON.parse(input);
let next = 0;
const headersVary = Object.values(headers ?? {}).some((value) => value.includes(UNIQUE));
const varying = bodies.length > 1 || bodies.some((body) => body.includes(UNIQUE)) || headersVary;
/** This request's headers, each `{{unique}}` replaced by `unique`. */
const headersOf = (unique) => (headersVary ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replaceAll(UNIQUE, unique)])) : headers);
const result = await autocannon({
  url,
  method,
  headers,
  connections,
  duration,
  body: varying ? undefined : bodies[0],
  requests: varying
    ? [
        {
          setupRequest: (request) => {
            const unique = `${process.pid}-${next}`;
            const body = bodies[next++ % bodies.length].replaceAll(UNIQUE, unique);
            return { ...request, headers: headersOf(unique), body };
          },
        },
      ]
    : undefined,
});
process.stdout.write(JSON.stringify(result));
