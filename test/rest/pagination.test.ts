// The REST list plumbing shared by every paginated route: page-size / page-continue
// (query or X-Page-* headers), X-Page-Next, filter parameters coerced by the schema's
// own types, and operation failures turned into problems naming the request's
// parameters.
import { describe, expect, it } from 'vitest';
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { DoorRequest } from '../../src/http/door.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, nextPageHeaders, PAGE_PARAMETER_NAMES, readPage } from '../../src/rest/pagination.ts';
import { problemFromOutcome, validationProblem } from '../../src/rest/problem.ts';
import { documentQueryParameters, readQueryParameters, type QueryParameter } from '../../src/rest/queryParameters.ts';
import { classifyError } from '../../src/schema/errors.ts';

function pageOf(query: string, headers: Record<string, string> = {}) {
  const url = new URL(`http://localhost/v2.2/x?${query}`);
  const request = { headers, url } as unknown as DoorRequest;
  return readPage({ query: url.searchParams, request });
}

describe('readPage', () => {
  it(`defaults to ${DEFAULT_PAGE_SIZE} items from the start`, () => {
    expect(pageOf('')).toEqual({ ok: true, first: DEFAULT_PAGE_SIZE, after: null });
  });

  it('reads page-size and page-continue from the query, or from X-Page-Size / X-Page-Continue', () => {
    expect(pageOf('page-size=7&page-continue=abc.def')).toEqual({ ok: true, first: 7, after: 'abc.def' });
    expect(pageOf('', { 'x-page-size': '9', 'x-page-continue': 'c.d' })).toEqual({ ok: true, first: 9, after: 'c.d' });
    expect(pageOf('page-size=3', { 'x-page-size': '9' })).toMatchObject({ first: 3 });
  });

  it(`accepts 1..${MAX_PAGE_SIZE} and refuses anything else, naming the parameter`, () => {
    expect(pageOf('page-size=1')).toMatchObject({ ok: true, first: 1 });
    expect(pageOf(`page-size=${MAX_PAGE_SIZE}`)).toMatchObject({ ok: true, first: MAX_PAGE_SIZE });
    for (const bad of ['0', `${MAX_PAGE_SIZE + 1}`, '-1', '2.5', 'ten', '', '1e2', ' 5']) {
      expect(pageOf(`page-size=${encodeURIComponent(bad)}`), bad).toMatchObject({ ok: false, issues: [{ path: 'page-size' }] });
    }
    expect(pageOf('page-continue=')).toMatchObject({ ok: false, issues: [{ path: 'page-continue', message: 'must not be empty' }] });
  });

  it('sends X-Page-Next only while more results exist', () => {
    expect(nextPageHeaders({ hasNextPage: true, endCursor: 'n.s' })).toEqual({ 'x-page-next': 'n.s' });
    expect(nextPageHeaders({ hasNextPage: false, endCursor: 'n.s' })).toEqual({});
    expect(nextPageHeaders({ hasNextPage: true, endCursor: null })).toEqual({});
  });
});

describe('readQueryParameters', () => {
  const parameters: QueryParameter[] = [
    { name: 'location_id', variable: 'locationId', type: 'ID', idPrefix: 'loc_', description: 'location' },
    { name: 'sku', variable: 'sku', type: 'String', description: 'sku' },
    { name: 'updated_at_min', variable: 'updatedAtMin', type: 'DateTime', description: 'from' },
    { name: 'kind', variable: 'kind', type: 'StoreKind', description: 'an enum of the schema' },
  ];
  const read = (query: string) => readQueryParameters(new URLSearchParams(query), parameters);

  it('maps present parameters to GraphQL variables and leaves absent ones out', () => {
    expect(read('location_id=loc_abc123&updated_at_min=2026-01-02T03:04:05Z&kind=MERCHANT')).toEqual({
      ok: true,
      variables: { locationId: 'loc_abc123', updatedAtMin: '2026-01-02T03:04:05Z', kind: 'MERCHANT' },
    });
    expect(read('')).toEqual({ ok: true, variables: {} });
    expect(read('unrelated=1')).toEqual({ ok: true, variables: {} });
  });

  it('reports every bad parameter at once, coerced by the schema types', () => {
    const result = read('location_id=prd_abc&sku=&updated_at_min=yesterday&kind=SHOP');
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: 'location_id', message: 'must be an id starting with loc_, got "prd_abc"' },
        { path: 'sku', message: 'must not be empty' },
        { path: 'updated_at_min', message: expect.stringMatching(/^DateTime must be an ISO 8601 date-time/) },
        { path: 'kind', message: 'must be one of MERCHANT, FULFILLMENT_SERVICE, got "SHOP"' },
      ],
    });
  });

  it('refuses a date-time without a time zone, a date that does not exist and a repeated parameter', () => {
    expect(read('updated_at_min=2026-01-02T03:04:05')).toMatchObject({ ok: false, issues: [{ path: 'updated_at_min' }] });
    expect(read('updated_at_min=2026-13-45T03:04:05Z')).toMatchObject({ ok: false, issues: [{ path: 'updated_at_min' }] });
    expect(read('sku=a&sku=b')).toMatchObject({ ok: false, issues: [{ path: 'sku', message: 'must be given at most once' }] });
  });

  it('documents each parameter with the schema it is checked against', () => {
    expect(documentQueryParameters(parameters)).toEqual([
      { name: 'location_id', in: 'query', description: 'location', schema: { type: 'string', pattern: '^loc_[0-9a-z]+$' } },
      { name: 'sku', in: 'query', description: 'sku', schema: { type: 'string', minLength: 1 } },
      { name: 'updated_at_min', in: 'query', description: 'from', schema: { type: 'string', format: 'date-time' } },
      { name: 'kind', in: 'query', description: 'an enum of the schema', schema: { type: 'string', enum: ['MERCHANT', 'FULFILLMENT_SERVICE'] } },
    ]);
  });
});

describe('problems from failed operations', () => {
  const names = { ...PAGE_PARAMETER_NAMES, updatedAtMin: 'updated_at_min' };
  const failed = (result: ExecutionResult) => ({ error: classifyError(result.errors![0]), result });
  const bodyOf = (response: { body?: string | Buffer }) => JSON.parse(String(response.body));

  it('turns variables that did not coerce into one 400 naming each parameter', () => {
    const result: ExecutionResult = {
      errors: [
        new GraphQLError('Variable "$updatedAtMin" got invalid value "x"; DateTime must be an ISO 8601 date-time'),
        new GraphQLError('Variable "$first" got invalid value "z"; Int cannot represent non-integer value: "z"'),
      ],
    };
    const response = problemFromOutcome(failed(result), '/v2.2/x?y', names);
    expect(response.status).toBe(400);
    expect(bodyOf(response)).toMatchObject({
      status: 400,
      instance: '/v2.2/x?y',
      errors: [
        { path: 'updated_at_min', message: 'DateTime must be an ISO 8601 date-time' },
        { path: 'page-size', message: 'Int cannot represent non-integer value: "z"' },
      ],
    });
  });

  it('names page-continue for a refused cursor', () => {
    const cursorError = new GraphQLError('invalid cursor: pass back a cursor exactly as it was returned', { extensions: { code: 'BAD_USER_INPUT' } });
    const response = problemFromOutcome(failed({ data: null, errors: [cursorError] }), '/i', names);
    expect(response.status).toBe(400);
    expect(bodyOf(response).errors).toEqual([{ path: 'page-continue', message: cursorError.message }]);
  });

  it('maps each error code to its status and renames issue paths', () => {
    const notFound = new GraphQLError('gone', { extensions: { code: 'NOT_FOUND' } });
    expect(problemFromOutcome(failed({ data: null, errors: [notFound] }), '/i').status).toBe(404);
    const forbidden = new GraphQLError('no', { extensions: { code: 'FORBIDDEN' } });
    expect(problemFromOutcome(failed({ data: null, errors: [forbidden] }), '/i').status).toBe(403);
    const invalid = new GraphQLError('bad', { extensions: { code: 'BAD_USER_INPUT', issues: [{ path: 'updatedAtMin.x', message: 'bad' }] } });
    expect(bodyOf(problemFromOutcome(failed({ data: null, errors: [invalid] }), '/i', names)).errors).toEqual([{ path: 'updated_at_min.x', message: 'bad' }]);
    const internal = new GraphQLError('boom', { originalError: new Error('db down') });
    const response = problemFromOutcome(failed({ data: null, errors: [internal] }), '/i');
    expect(response.status).toBe(500);
    expect(bodyOf(response).detail).toBe('internal error');
  });

  it('lists every validation issue in the detail and in errors', () => {
    const response = validationProblem([{ path: 'a', message: 'is bad' }, { path: 'b', message: 'is worse' }], '/i');
    expect(response.headers?.['content-type']).toMatch(/^application\/problem\+json/);
    expect(bodyOf(response)).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'a: is bad; b: is worse',
      instance: '/i',
      errors: [{ path: 'a', message: 'is bad' }, { path: 'b', message: 'is worse' }],
    });
  });
});
