// Tracker issue 24: a schema-driven fuzzer over every operation of /v2.2/openapi.json, every
// route of /v3/rest/openapi.json, every root field of /v3/schema.graphql with a string argument,
// and the warehouse compat routes. Each operation's valid request (fixture ids of the right kind,
// a body with every member its schema names) is sent with bad values spliced into every body
// member, path id, query value and header, and with bodies and content types a JSON route must
// refuse. No answer may be a 5xx, take over 5 s, leave the door's error format, or (for a refused
// write) change any table's row count. The documents are the ones the running server serves.
// FUZZ_BUDGET sets the number of requests (4,600 by default, the order of the issue's run).
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compatOperations,
  documentOperations,
  graphqlOperations,
  kindOf,
  planOperation,
  sampleRequests,
  seededRandom,
  sofaFields,
} from '../support/fuzz.ts';
import { seedFixtures, unknownId, type Fixtures } from '../support/fuzzFixtures.ts';
import { formatOffences, runFuzz } from '../support/fuzzRun.ts';
import { call, createTestStore, startTestServer, type TestServer } from '../support/server.ts';

const BUDGET = Number(process.env.FUZZ_BUDGET ?? 4_600);
const SEED = 24;
const CONCURRENCY = 4;

let server: TestServer;
let mine: Fixtures;
let theirs: Fixtures;

beforeAll(async () => {
  // Thousands of requests a minute from one client: the rate limits are not what is under test.
  server = await startTestServer({ rateLimits: { rest: 1_000_000, compat: 1_000_000 } });
  mine = await seedFixtures(server, await createTestStore(server.db, { name: 'Fuzz store' }), 'mine');
  theirs = await seedFixtures(server, await createTestStore(server.db, { name: 'Other store' }), 'theirs');
});
afterAll(async () => server?.close());

async function served(path: string): Promise<string> {
  const response = await call(server, 'GET', path, { secret: mine.store.secret });
  expect(response.status, `${path}: ${response.text.slice(0, 200)}`).toBe(200);
  return response.text;
}

describe('fuzzing every door (issue 24)', () => {
  it('answers every operation x member x bad value without a 5xx, a hang, a foreign error format or a refused write that wrote', { timeout: 600_000 }, async () => {
    const [v22, v3rest, sdl] = await Promise.all([served('/v2.2/openapi.json'), served('/v3/rest/openapi.json'), served('/v3/schema.graphql')]);
    const schema = buildSchema(sdl);
    const random = seededRandom(SEED);
    const specs = [
      ...documentOperations({ door: 'v2.2', prefix: '/v2.2', document: JSON.parse(v22), fixtures: mine, other: theirs }),
      ...documentOperations({ door: 'v3/rest', prefix: '/v3/rest', document: JSON.parse(v3rest), fixtures: mine, other: theirs, fieldOf: sofaFields(schema) }),
      ...compatOperations(mine, theirs),
    ];
    const planned = [...specs.map((spec) => planOperation(spec, random)), ...graphqlOperations(schema, mine, random)];
    const { requests, pairs } = sampleRequests(planned, BUDGET);

    const started = performance.now();
    const result = await runFuzz(server, mine.store.secret, requests, CONCURRENCY);
    const seconds = (performance.now() - started) / 1000;

    const doors = new Map<string, number>();
    for (const request of requests) doors.set(request.door, (doors.get(request.door) ?? 0) + 1);
    const refusedValid = result.answered.filter(({ request, answer }) => request.variant === 'valid' && answer.status >= 400);
    const slowest = result.answered.reduce((a, b) => (b.answer.ms > a.answer.ms ? b : a));
    process.stdout.write(
      `fuzz: ${requests.length} requests (${[...doors].map(([door, n]) => `${door} ${n}`).join(', ')}; ${planned.length} operations, ${pairs} member x value pairs sampled to the budget of ${BUDGET}) ` +
        `in ${seconds.toFixed(1)} s, ${result.offences.length} offences; slowest answer ${Math.round(slowest.answer.ms)} ms (${slowest.request.operation} | ${slowest.request.variant})\n` +
        `fuzz: ${refusedValid.length} valid requests were refused, so their variants test the refusal path only: ` +
        `${refusedValid.map(({ request, answer }) => `${request.operation} ${answer.status}`).join(', ')}\n`,
    );
    if (result.offences.length > 0) throw new Error(formatOffences(result.offences, requests.length));
  });

  it("answers GET /v3/rest/<type>/<id> of an unknown id or another store's with 404 problem+json", async () => {
    const document = JSON.parse(await served('/v3/rest/openapi.json')) as { paths: Record<string, { get?: unknown }> };
    const byId = Object.keys(document.paths).filter((path) => /^\/[\w-]+\/\{id\}$/.test(path) && document.paths[path].get);
    expect(byId.length).toBeGreaterThan(5);
    const wrong: string[] = [];
    for (const template of byId) {
      const route = template.split('/')[1];
      const kind = kindOf('id', route);
      expect(kind, `the fixture kind of ${template}`).toBeDefined();
      for (const id of [unknownId(kind!), theirs.ids[kind!]]) {
        if (!id) continue;
        const path = `/v3/rest/${route}/${encodeURIComponent(id)}`;
        const response = await call(server, 'GET', path, { secret: mine.store.secret });
        const problem = response.headers.get('content-type')?.startsWith('application/problem+json') && (response.body as { status?: number })?.status === 404;
        if (response.status !== 404 || !problem) wrong.push(`${path} -> ${response.status} ${response.text.slice(0, 200)}`);
      }
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  });
});
