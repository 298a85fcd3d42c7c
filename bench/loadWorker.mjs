// The load generator's own process (bench/load.ts starts it): autocannon with the options
// given as JSON on stdin, cycling through `bodies` when there are several; prints its result as JSON.
// `{{unique}}` in a body or a header becomes a value no other request of any run sends (a new
// order's id, an Idempotency-Key). With `spread`, requests go in turn to `url` and to each of its
// paths with that path's headers (other stores of the same server).
import autocannon from 'autocannon';

const UNIQUE = '{{unique}}';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, method, headers, bodies, spread = [], connections, duration } = JSON.parse(input);
let next = 0;
const targets = [{ path: new URL(url).pathname, headers }, ...spread];
const headersVary = targets.some((target) => Object.values(target.headers ?? {}).some((value) => value.includes(UNIQUE)));
const varying = bodies.length > 1 || bodies.some((body) => body.includes(UNIQUE)) || headersVary || spread.length > 0;
/** This request's headers, each `{{unique}}` replaced by `unique`. */
const headersOf = (target, unique) =>
  headersVary ? Object.fromEntries(Object.entries(target.headers).map(([name, value]) => [name, value.replaceAll(UNIQUE, unique)])) : target.headers;
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
            const target = targets[next % targets.length];
            const body = bodies[next++ % bodies.length].replaceAll(UNIQUE, unique);
            return { ...request, path: target.path, headers: headersOf(target, unique), body };
          },
        },
      ]
    : undefined,
});
process.stdout.write(JSON.stringify(result));
