// What every dashboard page is made with: the request a page handler gets, running its
// GraphQL operations with the signed-in user's context, the page frame, failures shown in it,
// and the searchable list (a search box over a table that pages).
import type { DoorResponse } from '../../door.ts';
import { runOperation, type Operation } from '../../schema/execute.ts';
import type { GraphQLContext } from '../../schema/context.ts';
import { html, type Html } from '../html.ts';
import { page } from '../http.ts';

export interface DashboardRequest {
  ctx: GraphQLContext;
  session: { storeName: string; email: string; csrfToken: string };
  method: string;
  segments: string[];
  query: URLSearchParams;
  form: URLSearchParams;
}

const STATUS_OF_CODE: Record<string, number> = { NOT_FOUND: 404, BAD_USER_INPUT: 400, CONFLICT: 409, UNPROCESSABLE: 422, FORBIDDEN: 403, UNAVAILABLE: 503 };

export class PageFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function failureOf(error: { code: string; message: string }): PageFailure {
  return new PageFailure(STATUS_OF_CODE[error.code] ?? 500, error.code === 'INTERNAL_SERVER_ERROR' ? 'Something went wrong.' : error.message);
}

export async function run<T>(req: DashboardRequest, operation: Operation, variables: Record<string, unknown> = {}): Promise<T> {
  const outcome = await runOperation<T>(operation, variables, req.ctx);
  if (!outcome.ok) throw failureOf(outcome.error);
  return outcome.data;
}

export function view(req: DashboardRequest, status: number, title: string, body: Html, script?: string): DoorResponse {
  return page(status, { title, body, dashboard: req.session, script });
}

export function notFound(req: DashboardRequest): DoorResponse {
  return view(req, 404, 'Not found', html`<p>There is nothing here for this store.</p>`);
}

// ------------------------------------------------------------------ searching lists

export interface Connection<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** A page of a list, or the service's words when it refused the query typed (or a cursor it cannot read). */
type SearchResult<T> = { nodes: T[]; pageInfo: Connection<T>['pageInfo'] } | { refused: string };

/**
 * Runs a list's operation (`field` is the connection it answers). A malformed search is the
 * searcher's to mend, so it comes back to be shown beside the box; any other failure is the
 * page's, as on every page.
 */
export async function searchPage<T>(req: DashboardRequest, field: string, operation: Operation, variables: Record<string, unknown>): Promise<SearchResult<T>> {
  const outcome = await runOperation<Record<string, Connection<T>>>(operation, variables, req.ctx);
  if (outcome.ok) return outcome.data[field];
  if (outcome.error.code === 'BAD_USER_INPUT') return { refused: outcome.error.message };
  throw failureOf(outcome.error);
}

/** `field:value` as one term of the search syntax: the value quoted (\\ and \" escaped) unless it is one plain word. */
export function searchTerm(field: string, value: string): string {
  return /^[^\s"()\\<>=-][^\s"()\\]*$/.test(value) ? `${field}:${value}` : `${field}:"${value.replace(/["\\]/g, '\\$&')}"`;
}

interface SearchList<T> {
  title: string;
  /** The list's address: the form's action and the next page's link. */
  path: string;
  /** What the list holds, plural ("orders"), for "No orders match." */
  what: string;
  /** The search as typed, kept in the box whatever it holds. */
  q: string;
  /** What words find, in a line under the box. */
  hint: string;
  /** Examples of the list's fields (its search syntax, src/domain/search/kinds.ts), shown on demand. */
  fields: string[];
  /** Further inputs of the form (the returns status filter) and the values they keep in the next page's link. */
  filters?: Html;
  keep?: Record<string, string>;
  columns: string[];
  row(node: T): Html;
  /** Wraps the table and its pager (the returns list's live region). */
  region?(list: Html): Html;
  script?: string;
}

/** A list with its search form on top: the rows and a next page link that keeps the search, or the refusal with the form as it was sent (400). */
export function searchListView<T>(req: DashboardRequest, result: SearchResult<T>, list: SearchList<T>): DoorResponse {
  const refused = 'refused' in result ? result.refused : undefined;
  const form = html`<form method="get" action="${list.path}" class="card">
<label for="search-q">Search ${list.what}</label><input type="search" id="search-q" name="q" value="${list.q}" maxlength="1000" aria-describedby="${refused ? 'search-error ' : ''}search-hint"${refused ? html` aria-invalid="true"` : ''}>
${refused ? html`<p class="error" role="alert" id="search-error">${refused}</p>` : ''}<p class="hint" id="search-hint">${list.hint}</p>
<details class="hint"><summary>Fields and operators</summary><p>${list.fields.map((f) => html`<code>${f}</code> `)}narrow to one field;
<code>"two words"</code> is a phrase, <code>-word</code> or <code>NOT word</code> excludes, <code>a OR b</code> is either, terms side by side must all hold, <code>( )</code> group.</p></details>
${list.filters ?? ''}<div><button type="submit">Search</button></div></form>`;
  if ('refused' in result) return view(req, 400, list.title, form);
  const searched = list.q.trim() !== '' || Object.values(list.keep ?? {}).some(Boolean);
  const rows = result.nodes.length > 0
    ? result.nodes.map((node) => list.row(node))
    : html`<tr class="empty"><td colspan="${list.columns.length}">${searched ? `No ${list.what} match.` : `No ${list.what} yet.`}</td></tr>`;
  const { hasNextPage, endCursor } = result.pageInfo;
  const params = Object.entries({ ...list.keep, q: list.q, ...(endCursor ? { after: endCursor } : {}) }).filter(([, value]) => value !== '');
  const next = hasNextPage && endCursor ? html`<p class="pager"><a href="${list.path}?${new URLSearchParams(params).toString()}" rel="next">Next page</a></p>` : '';
  const table = html`<div class="table"><table><thead><tr>${list.columns.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>${next}`;
  return view(req, 200, list.title, html`${form}
${list.region ? list.region(table) : table}`, list.script);
}

