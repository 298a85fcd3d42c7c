// REST cursor pagination (docs/interface-rules.md, "Lists and pages"): `page-size` (default 20, 1..500) and
// `page-continue`, as query parameters or X-Page-Size / X-Page-Continue headers; the
// next cursor goes out in X-Page-Next only while more results exist. The cursor is
// the GraphQL connection's endCursor, passed through unchanged (it is signed, so an
// altered one fails the operation with BAD_USER_INPUT -> 400).
import { header } from '../http/door.ts';
import type { RouteInput, RouteDoc } from '../http/routeTable.ts';
import type { FieldIssue } from '../schema/errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 500;

/** GraphQL variables of a REST list and the parameters that fill them, for error paths. */
export const PAGE_PARAMETER_NAMES = { first: 'page-size', after: 'page-continue' } as const;

export type PageRequest =
  | { ok: true; first: number; after: string | null }
  | { ok: false; issues: FieldIssue[] };

function refused(path: string, message: string): PageRequest {
  return { ok: false, issues: [{ path, message }] };
}

export function readPage(input: Pick<RouteInput, 'query' | 'request'>, defaultSize = DEFAULT_PAGE_SIZE): PageRequest {
  const rawSize = input.query.get('page-size') ?? header(input.request, 'x-page-size');
  const after = input.query.get('page-continue') ?? header(input.request, 'x-page-continue') ?? null;
  let first = defaultSize;
  if (rawSize !== undefined && rawSize !== null) {
    if (!/^\d+$/.test(rawSize) || Number(rawSize) < 1 || Number(rawSize) > MAX_PAGE_SIZE) {
      return refused('page-size', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got "${rawSize}"`);
    }
    first = Number(rawSize);
  }
  if (after !== null && after.length === 0) return refused('page-continue', 'must not be empty');
  return { ok: true, first, after };
}

export function nextPageHeaders(pageInfo: { hasNextPage: boolean; endCursor?: string | null }): Record<string, string> {
  return pageInfo.hasNextPage && pageInfo.endCursor ? { 'x-page-next': pageInfo.endCursor } : {};
}

/** OpenAPI parameters and the X-Page-Next header every paginated list documents. */
export const PAGINATION_DOC: { parameters: NonNullable<RouteDoc['parameters']>; nextHeader: { description: string; schema: { type: 'string' } } } = {
  parameters: [
    { name: 'page-size', in: 'query', description: `Items per page (default ${DEFAULT_PAGE_SIZE}, 1..${MAX_PAGE_SIZE})`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    { name: 'page-continue', in: 'query', description: 'Cursor copied unchanged from the previous response\'s X-Page-Next', schema: { type: 'string' } },
    { name: 'X-Page-Size', in: 'header', description: 'Same as page-size', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    { name: 'X-Page-Continue', in: 'header', description: 'Same as page-continue', schema: { type: 'string' } },
  ],
  nextHeader: { description: 'Cursor of the next page; absent on the last page', schema: { type: 'string' } },
};
