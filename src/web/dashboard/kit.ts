// What every dashboard page is made with: the request a page handler gets, running its
// GraphQL operations with the signed-in user's context, the page frame, failures shown in it,
// and the searchable list (a search box over a table that pages).
import type { DoorResponse } from '../../http/door.ts';
import { runOperation, type Operation } from '../../schema/execute.ts';
import type { GraphQLContext } from '../../schema/context.ts';
import { html, type Html } from '../html.ts';
import { page, redirect } from '../http.ts';

export interface DashboardRequest {
  ctx: GraphQLContext;
  session: { storeName: string; email: string; csrfToken: string };
  method: string;
  segments: string[];
  query: URLSearchParams;
  form: URLSearchParams;
  /** What the action before this page did, carried across its redirect (POST/redirect/GET). */
  flash?: Flash;
  /** Whether the request came over HTTPS (a cookie set then is Secure). */
  secure: boolean;
}

/** The message an action leaves for the page it redirects to. */
export interface Flash {
  done?: string;
  error?: string;
  /** A secret the action made (a new API client's), shown once under `done`: it lives only in this cookie, spent by the page that shows it. */
  secret?: string;
}

/** The cookie that carries a Flash across one redirect; the door reads it and clears it on the page that shows it. */
export const FLASH_COOKIE = 'dashboard_flash';
const FLASH_MAX_CHARS = 1000;

export function readFlash(value: string | undefined): Flash | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const text = (key: keyof Flash) => {
      const found = (parsed as Record<string, unknown>)[key];
      return typeof found === 'string' ? found.slice(0, FLASH_MAX_CHARS) : undefined;
    };
    const flash = { done: text('done'), error: text('error'), secret: text('secret') };
    return flash.done || flash.error ? flash : undefined;
  } catch {
    return undefined;
  }
}

export function flashCookie(flash: Flash | undefined, secure: boolean): string {
  const value = flash ? Buffer.from(JSON.stringify(flash)).toString('base64url') : '';
  return [`${FLASH_COOKIE}=${value}`, 'Path=/admin', 'HttpOnly', 'SameSite=Lax', `Max-Age=${flash ? 60 : 0}`, ...(secure ? ['Secure'] : [])].join('; ');
}

/**
 * Ends a form's action: a redirect to the page that shows its outcome (so reloading that page
 * repeats nothing), carrying the message saying what happened.
 */
export function afterAction(req: DashboardRequest, location: string, flash: Flash): DoorResponse {
  return redirect(location, { 'set-cookie': flashCookie(flash, req.secure) });
}

/** The outcome of the last action, first on the page and focused, so a screen reader and the keyboard start there. */
function flashMessage(flash: Flash | undefined): Html | '' {
  if (!flash) return '';
  return html`${flash.error ? html`<div class="error" role="alert" id="flash" tabindex="-1" autofocus>${flash.error}</div>` : ''}${flash.done ? html`<div class="notice" role="status" id="flash" tabindex="-1" autofocus>${flash.secret ? html`<p>${flash.done}</p><code class="secret" id="new-secret">${flash.secret}</code>` : flash.done}</div>` : ''}`;
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
  return page(status, { title, body: html`${flashMessage(req.flash)}${body}`, dashboard: req.session, script });
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
  /** A row's cells, in the order of `columns` (a phone shows each under its column's name). */
  cells(node: T): Html[];
  /** Attributes of a row's <tr> (data-… ids for the live list and the tests). */
  rowAttributes?(node: T): Html;
  /** Wraps the table and its pager (the returns list's live region). */
  region?(list: Html): Html;
  script?: string;
  /** Where the whole search is exported (`/admin/exports/orders`): links to it with .csv and .jsonl, keeping the search, under the form. */
  exportPath?: string;
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
    ? result.nodes.map((node) => html`<tr${list.rowAttributes?.(node) ?? ''}>${cellsOf(list.columns, list.cells(node))}</tr>`)
    : html`<tr class="empty"><td colspan="${list.columns.length}">${searched ? `No ${list.what} match.` : `No ${list.what} yet.`}</td></tr>`;
  const { hasNextPage, endCursor } = result.pageInfo;
  const params = Object.entries({ ...list.keep, q: list.q, ...(endCursor ? { after: endCursor } : {}) }).filter(([, value]) => value !== '');
  const next = hasNextPage && endCursor ? html`<p class="pager"><a href="${list.path}?${new URLSearchParams(params).toString()}" rel="next">Next page</a></p>` : '';
  const table = html`${dataTable(list.title, list.columns, rows)}${next}`;
  const search = new URLSearchParams(Object.entries({ ...list.keep, q: list.q }).filter(([, value]) => value !== '')).toString();
  const exports = list.exportPath
    ? html`<p class="exports">${searched ? `The ${list.what} this search finds` : `All ${list.what}`}, as a file: <a href="${list.exportPath}.csv?${search}" download>Export CSV</a>
<a href="${list.exportPath}.jsonl?${search}" download>Export JSON Lines</a></p>`
    : '';
  return view(req, 200, list.title, html`${form}
${exports}${list.region ? list.region(table) : table}`, list.script);
}


/** Cells, each labelled with its column's name for a phone, where a row becomes a card (app.css `table.cards`). */
export function cellsOf(columns: string[], cells: Html[]): Html {
  return html`${cells.map((cell, i) => html`<td data-label="${columns[i] ?? ''}">${cell}</td>`)}`;
}

/**
 * A table of records: on a wide screen a table that scrolls sideways when it must (the scrolling
 * region is a named stop in the keyboard's order, so it can be scrolled without a mouse); at
 * phone width each row is a card of labelled cells.
 */
export function dataTable(label: string, columns: string[], rows: Html | Html[], attributes?: Html): Html {
  return html`<div class="table" role="region" aria-label="${label}" tabindex="0"><table class="cards"${attributes ?? ''}><thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}
