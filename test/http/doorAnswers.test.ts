// Every door's answers for a fixed data set (test/support/answersFixture.ts), byte for byte as
// they were recorded (doorAnswers.recorded.json) before the reads' planned path changed how
// they are made: status, media type, page links and body. RECORD_DOOR_ANSWERS=1 records them
// again (only where an answer is meant to change). The server's own address is the one part
// of an answer that differs from run to run, and is written as http://service.
// On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set: the same bytes from both.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ORDER_FRAGMENT, REST_RETURN_FRAGMENT } from '../../src/formats/restReturn.ts';
import { seedAnswersFixture, type AnswersFixture } from '../support/answersFixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const RECORDED = fileURLToPath(new URL('./doorAnswers.recorded.json', import.meta.url));
const RECORD = process.env.RECORD_DOOR_ANSWERS === '1';

const RETURNS_PAGE = `query RestReturns($first: Int!, $after: String) {
  returns(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ...RestReturn order { ...RestOrder } } }
}
${REST_RETURN_FRAGMENT}
${REST_ORDER_FRAGMENT}`;
const RETURN_EDGES = `query Edges($first: Int!, $after: String) {
  returns(first: $first, after: $after) { edges { cursor node { id status tags totalRefund { amount currency } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
}`;

interface Asked {
  name: string;
  method?: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The next page of the REST answer named: `path` with its X-Page-Next as page-continue. */
  next?: string;
}

/** What the doors are asked: each door's returns list (two pages of it and one of 20), a return and an order. */
function asked(f: AnswersFixture): Asked[] {
  const store = `/v2.2/stores/${f.storeId}`;
  const v3 = (query: string, variables: Record<string, unknown>) => ({ query, variables });
  return [
    { name: 'rest returns page of 20', path: `${store}/returns?page-size=20` },
    { name: 'rest returns page 1 of 2', path: `${store}/returns?page-size=2` },
    { name: 'rest returns page 2 of 2', path: `${store}/returns?page-size=2`, next: 'rest returns page 1 of 2' },
    { name: 'rest returns, open only', path: `${store}/returns?page-size=20&status=open` },
    { name: 'rest return', path: `/v2.2/returns/${f.returnIds[2]}` },
    { name: 'rest order', path: `${store}/orders/${f.orderIds[1]}` },
    { name: 'v3 POST returns page', method: 'POST', path: '/v3/graphql', body: v3(RETURNS_PAGE, { first: 20 }) },
    { name: 'v3 POST returns edges', method: 'POST', path: '/v3/graphql', body: v3(RETURN_EDGES, { first: 2 }) },
    { name: 'v3 GET returns page', path: `/v3/graphql?query=${encodeURIComponent(RETURNS_PAGE)}&variables=${encodeURIComponent(JSON.stringify({ first: 3 }))}` },
    { name: 'v3 POST refused field', method: 'POST', path: '/v3/graphql', body: v3('{ returns(first: 1) { nodes { nope } } }', {}) },
    { name: 'v3rest returns page', path: '/v3/rest/returns?first=20' },
    { name: 'v3rest returns page 1 of 2', path: '/v3/rest/returns?first=2' },
    { name: 'warehouse return list', path: '/api/v1/warehouse/return/list?from=2026-01-01&to=2026-03-01' },
    { name: 'warehouse return details', path: `/api/v1/warehouse/return/details?return_id=${f.returnNumbers[0]}` },
    { name: 'warehouse return notes', path: `/api/v1/warehouse/return/${f.returnNumbers[2]}/notes` },
  ];
}

interface Answer {
  status: number;
  contentType: string | null;
  link: string | null;
  next: string | null;
  body: string;
}

let server: TestServer;
let fixture: AnswersFixture;

beforeAll(async () => {
  server = await startTestServer();
  fixture = await seedAnswersFixture(server.db);
});
afterAll(async () => server?.close());

async function answer(request: Asked, answers: Map<string, Answer>): Promise<Answer> {
  const local = (text: string | null) => text?.replaceAll(server.url, 'http://service') ?? null;
  let path = request.path;
  if (request.next) {
    const cursor = answers.get(request.next)!.next;
    if (!cursor) throw new Error(`${request.next} names no next page`);
    path = `${path}&page-continue=${encodeURIComponent(cursor)}`;
  }
  const response = await fetch(server.url + path, {
    method: request.method ?? 'GET',
    headers: { authorization: `Bearer ${fixture.secret}`, ...(request.body ? { 'content-type': 'application/json' } : {}) },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    link: local(response.headers.get('link')),
    next: local(response.headers.get('x-page-next')),
    body: local(await response.text())!,
  };
}

describe('every door’s answers for the fixed data set', () => {
  it('are byte for byte the recorded ones', async () => {
    const answers = new Map<string, Answer>();
    for (const request of asked(fixture)) answers.set(request.name, await answer(request, answers));
    const got = Object.fromEntries(answers);
    for (const [name, { status, body }] of answers) {
      if (name.includes('refused')) expect(body).toContain('"errors"');
      else expect([name, status]).toEqual([name, 200]);
    }
    if (RECORD) {
      fs.writeFileSync(RECORDED, `${JSON.stringify(got, null, 2)}\n`);
      return;
    }
    const recorded = JSON.parse(fs.readFileSync(RECORDED, 'utf8')) as Record<string, Answer>;
    expect(Object.keys(got)).toEqual(Object.keys(recorded));
    for (const name of Object.keys(recorded)) expect(got[name], name).toEqual(recorded[name]);
  });
});
