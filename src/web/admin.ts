// Merchant dashboard pages. Each handler runs GraphQL operations with the signed-in
// user's context and renders escaped HTML; failures become a page in the same frame.
import { SCOPES } from '../auth/scopes.ts';
import type { DoorResponse } from '../door.ts';
import { runOperation, type Operation } from '../schema/execute.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { csrfField, formatDate, html, money, type Html } from './html.ts';
import { customerDataExportAnswer } from '../customerDataExport.ts';
import { page, redirect, SECURITY_HEADERS } from './http.ts';
import { LIVE_RETURNS_SCRIPT_PATH, RETURN_EVENTS_PATH } from './liveReturns.ts';
import { ops } from './operations.ts';

export interface DashboardRequest {
  ctx: GraphQLContext;
  session: { storeName: string; email: string; csrfToken: string };
  method: string;
  segments: string[];
  query: URLSearchParams;
  form: URLSearchParams;
}

const STATUS_OF_CODE: Record<string, number> = { NOT_FOUND: 404, BAD_USER_INPUT: 400, CONFLICT: 409, UNPROCESSABLE: 422, FORBIDDEN: 403, UNAVAILABLE: 503 };
const RETURN_STATUSES = ['OPEN', 'IN_TRANSIT', 'DELIVERED', 'NEEDS_REVIEW', 'IN_REVIEW', 'FLAGGED', 'COMPLETE', 'REJECTED', 'DELETED'];

class PageFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function failureOf(error: { code: string; message: string }): PageFailure {
  return new PageFailure(STATUS_OF_CODE[error.code] ?? 500, error.code === 'INTERNAL_SERVER_ERROR' ? 'Something went wrong.' : error.message);
}

async function run<T>(req: DashboardRequest, operation: Operation, variables: Record<string, unknown> = {}): Promise<T> {
  const outcome = await runOperation<T>(operation, variables, req.ctx);
  if (!outcome.ok) throw failureOf(outcome.error);
  return outcome.data;
}

function view(req: DashboardRequest, status: number, title: string, body: Html, script?: string): DoorResponse {
  return page(status, { title, body, dashboard: req.session, script });
}

function notFound(req: DashboardRequest): DoorResponse {
  return view(req, 404, 'Not found', html`<p>There is nothing here for this store.</p>`);
}

// ------------------------------------------------------------------ searching lists

interface Connection<T> {
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
async function searchPage<T>(req: DashboardRequest, field: string, operation: Operation, variables: Record<string, unknown>): Promise<SearchResult<T>> {
  const outcome = await runOperation<Record<string, Connection<T>>>(operation, variables, req.ctx);
  if (outcome.ok) return outcome.data[field];
  if (outcome.error.code === 'BAD_USER_INPUT') return { refused: outcome.error.message };
  throw failureOf(outcome.error);
}

/** `field:value` as one term of the search syntax: the value quoted (\\ and \" escaped) unless it is one plain word. */
function searchTerm(field: string, value: string): string {
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
function searchListView<T>(req: DashboardRequest, result: SearchResult<T>, list: SearchList<T>): DoorResponse {
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

// ------------------------------------------------------------------ history (the audit trail)

interface AuditEntryRow {
  id: string;
  occurredAt: string;
  actor: { kind: string; id: string | null; name: string | null };
  door: string;
  operation: string | null;
  requestId: string | null;
  object: { kind: string; id: string };
  parent: { kind: string; id: string } | null;
  action: 'INSERT' | 'UPDATE' | 'DELETE';
  changes: { field: string; before: unknown; after: unknown }[];
}

const ACTION_WORDS: Record<AuditEntryRow['action'], string> = { INSERT: 'created', UPDATE: 'changed', DELETE: 'deleted' };

function actorText({ kind, id, name }: AuditEntryRow['actor']): string {
  switch (kind) {
    case 'API_CLIENT':
      return `API client ${name ?? ''} (${id})`;
    case 'MERCHANT_USER':
      return name ?? `merchant user ${id}`;
    case 'SHOPPER':
      return `Shopper (session ${id})`;
    case 'JOB':
      return `Job ${id}`;
    default:
      return `Database${id ? ` (${id})` : ''}`;
  }
}

/** An object kind in words: ORDER_LINE_ITEM is "Order line item", API_CLIENT "API client". */
function kindText(kind: string): string {
  const words = kind.toLowerCase().replace(/^api_/, 'API_').split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function auditValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function historyRow(entry: AuditEntryRow): Html {
  const kind = kindText(entry.object.kind);
  const what = entry.parent ? `${kind} ${entry.object.id} ${ACTION_WORDS[entry.action]}` : `${kind} ${ACTION_WORDS[entry.action]}`;
  const changes = entry.changes.map((c) =>
    entry.action === 'UPDATE' ? html`<li><code>${c.field}</code> ${auditValue(c.before)} → ${auditValue(c.after)}</li>` : html`<li><code>${c.field}</code> ${auditValue(entry.action === 'INSERT' ? c.after : c.before)}</li>`,
  );
  // The labels head each cell where a narrow screen stacks an entry's cells (app.css).
  return html`<tr data-entry-id="${entry.id}"><td data-label="When">${formatDate(entry.occurredAt)}</td><td data-label="Who">${actorText(entry.actor)}</td>
<td data-label="Through">${entry.door}${entry.operation ? html` · ${entry.operation}` : ''}${entry.requestId ? html`<br><code>${entry.requestId}</code>` : ''}</td><td data-label="What">${what}</td><td><ul>${changes}</ul></td></tr>`;
}

interface HistoryList {
  title: string;
  /** objectHistory or actorHistory, and its variables. */
  operation: Operation;
  variables: Record<string, unknown>;
  /** The page's address: older entries are linked from it with their cursor as `history`; absent, only the newest page is shown. */
  path?: string;
}

/** A history section, newest first: the page after the `history` cursor of the page's address when the list pages. */
async function historySection(req: DashboardRequest, list: HistoryList): Promise<Html> {
  const after = list.path ? req.query.get('history') || undefined : undefined;
  const { auditEntries } = await run<{ auditEntries: Connection<AuditEntryRow> }>(req, list.operation, { ...list.variables, after });
  const { hasNextPage, endCursor } = auditEntries.pageInfo;
  const older =
    list.path && hasNextPage && endCursor ? html`<p class="pager"><a href="${list.path}?${new URLSearchParams({ history: endCursor }).toString()}" rel="next">Older changes</a></p>` : '';
  return html`<h2>${list.title}</h2>
${auditEntries.nodes.length > 0
  ? html`<div class="table"><table class="history"><thead><tr><th>When</th><th>Who</th><th>Through</th><th>What</th><th>Changes</th></tr></thead><tbody>${auditEntries.nodes.map(historyRow)}</tbody></table></div>${older}`
  : html`<p>No changes recorded.</p>`}`;
}

/** The history of a record and its parts (an order's lines, a return's items), on the record's page at `path`. */
const objectHistory = (req: DashboardRequest, path: string, kind: string, id: string) =>
  historySection(req, { title: 'History', operation: ops.objectHistory, variables: { kind, id }, path });

// ------------------------------------------------------------------ API clients

interface ApiClientRow {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: string | null;
  createdAt: string;
}

async function developerPage(req: DashboardRequest, created?: { secret: string; name: string }, error?: string): Promise<DoorResponse> {
  const { apiClients } = await run<{ apiClients: ApiClientRow[] }>(req, ops.apiClients);
  const rows = apiClients.map(
    (c) => html`<tr><td><a href="/admin/settings/developer/api-clients/${c.id}">${c.name}</a></td><td><code>${c.id}</code></td><td>${c.scopes.join(' ')}</td><td>${formatDate(c.createdAt)}</td>
<td>${c.revokedAt ? html`Revoked ${formatDate(c.revokedAt)}` : html`<form method="post" action="/admin/settings/developer/api-clients/${c.id}/revoke">${csrfField(req.session.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke ${c.name}">Revoke</button></form>`}</td></tr>`,
  );
  const scopeBoxes = SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`);
  return view(
    req,
    created ? 201 : error ? 400 : 200,
    'Settings → Developer',
    html`${created ? html`<div class="notice" role="status"><p>API client <strong>${created.name}</strong> created. Copy its secret now: it is shown only this once.</p><code class="secret" id="new-secret">${created.secret}</code></div>` : ''}
${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<h2>API clients</h2>
<div class="table"><table><thead><tr><th>Name</th><th>Id</th><th>Scopes</th><th>Created</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table></div>
<h2>Add an API client</h2>
<form method="post" action="/admin/settings/developer/api-clients" class="card">${csrfField(req.session.csrfToken)}
<label for="client-name">Name</label><input type="text" id="client-name" name="name" required maxlength="100">
<fieldset><legend>Scopes</legend>${scopeBoxes}</fieldset>
<button type="submit">Create API client</button></form>`,
  );
}

async function createClient(req: DashboardRequest): Promise<DoorResponse> {
  const name = req.form.get('name') ?? '';
  const scopes = req.form.getAll('scopes');
  const outcome = await runOperation<{ apiClientCreate: { secret: string; apiClient: { name: string } } }>(ops.apiClientCreate, { name, scopes }, req.ctx);
  if (!outcome.ok) return developerPage(req, undefined, outcome.error.message);
  return developerPage(req, { secret: outcome.data.apiClientCreate.secret, name: outcome.data.apiClientCreate.apiClient.name });
}

/** An API client: what it is, what it changed, and the history of the client itself. */
async function apiClientPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const { apiClients } = await run<{ apiClients: ApiClientRow[] }>(req, ops.apiClients);
  const client = apiClients.find((c) => c.id === id);
  if (!client) return notFound(req);
  const path = `/admin/settings/developer/api-clients/${encodeURIComponent(client.id)}`;
  const made = await historySection(req, { title: 'Changes made by this client', operation: ops.actorHistory, variables: { kind: 'API_CLIENT', id: client.id }, path });
  // The client's own history is short (created, revoked): its newest page is all of it.
  const own = await historySection(req, { title: 'History of this client', operation: ops.objectHistory, variables: { kind: 'API_CLIENT', id: client.id } });
  return view(
    req,
    200,
    `API client ${client.name}`,
    html`<section class="card"><p><strong>Id</strong> <code>${client.id}</code> · <strong>Created</strong> ${formatDate(client.createdAt)}${client.revokedAt ? html` · <strong>Revoked</strong> ${formatDate(client.revokedAt)}` : ''}</p>
<p><strong>Scopes</strong> ${client.scopes.join(' ')}</p></section>
${made}
${own}`,
  );
}

// ------------------------------------------------------------------ coverage and billing

interface CoverageRow {
  id: string | null;
  type: string;
  enabled: boolean;
  title: string;
  description: string;
  percentage: string;
  minimumPrice: string;
  maximumPrice: string;
  eligibleProductIds: string[];
}

type UserErrorRows = { field: string[] | null; message: string }[];

function describeUserErrors(errors: UserErrorRows): string {
  return errors.map((e) => (e.field ? `${e.field.slice(1).join('.')}: ${e.message}` : e.message)).join('; ');
}

async function coveragePage(req: DashboardRequest, message?: { error?: string; done?: string }): Promise<DoorResponse> {
  const data = await run<{ coverageProducts: CoverageRow[]; billingSettings: { returnProcessingFee: { amount: string; currency: string } } }>(req, ops.coverageSettings);
  const forms = data.coverageProducts.map((c) => {
    const key = c.type.toLowerCase();
    return html`<form method="post" action="/admin/settings/coverage/${key}" class="card">${csrfField(req.session.csrfToken)}
<h2>${c.type === 'SHIPPING_FAILURE' ? 'Shipping protection' : 'Return shipping'}</h2>
${c.id ? html`<p>Coverage product id (what a storefront adds to the cart): <code>${c.id}</code></p>` : ''}
<label class="check"><input type="checkbox" name="enabled" value="true" ${c.enabled ? html`checked` : ''}> Offered at checkout</label>
<label for="${key}-title">Title</label><input type="text" id="${key}-title" name="title" value="${c.title}" maxlength="200">
<label for="${key}-description">Description</label><textarea id="${key}-description" name="description" maxlength="1000">${c.description}</textarea>
<label for="${key}-percentage">Percent of the covered merchandise value</label><input type="text" inputmode="decimal" id="${key}-percentage" name="percentage" value="${c.percentage}">
<label for="${key}-minimum">Minimum price (in the cart's currency)</label><input type="text" inputmode="decimal" id="${key}-minimum" name="minimumPrice" value="${c.minimumPrice}">
<label for="${key}-maximum">Maximum price (in the cart's currency)</label><input type="text" inputmode="decimal" id="${key}-maximum" name="maximumPrice" value="${c.maximumPrice}">
<label for="${key}-products">Covered product ids, comma-separated (empty: every product)</label><input type="text" id="${key}-products" name="eligibleProductIds" value="${c.eligibleProductIds.join(', ')}">
<button type="submit">Save</button></form>`;
  });
  const fee = data.billingSettings.returnProcessingFee;
  return view(
    req,
    message?.error ? 400 : 200,
    'Settings → Coverage',
    html`${message?.done ? html`<div class="notice" role="status">${message.done}</div>` : ''}
${message?.error ? html`<div class="error" role="alert">${message.error}</div>` : ''}
${forms}
<form method="post" action="/admin/settings/coverage/billing" class="card">${csrfField(req.session.csrfToken)}
<h2>Return processing fee</h2>
<label for="return-fee">Charged per return created, in ${fee.currency}</label><input type="text" inputmode="decimal" id="return-fee" name="returnProcessingFee" value="${fee.amount}">
<button type="submit">Save</button></form>`,
  );
}

async function saveCoverage(req: DashboardRequest, which: string): Promise<DoorResponse> {
  const value = (name: string) => {
    const raw = req.form.get(name)?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  if (which === 'billing') {
    const outcome = await runOperation<{ billingSettingsUpdate: { userErrors: UserErrorRows } }>(ops.updateBilling, { input: { returnProcessingFee: value('returnProcessingFee') ?? '' } }, req.ctx);
    if (!outcome.ok) return coveragePage(req, { error: outcome.error.message });
    const errors = outcome.data.billingSettingsUpdate.userErrors;
    return coveragePage(req, errors.length > 0 ? { error: describeUserErrors(errors) } : { done: 'Return processing fee saved.' });
  }
  const type = which.toUpperCase();
  if (type !== 'SHIPPING_FAILURE' && type !== 'RETURN_SHIPPING') return notFound(req);
  const products = value('eligibleProductIds');
  const input = {
    type,
    enabled: req.form.get('enabled') === 'true',
    title: value('title'),
    description: req.form.get('description') ?? undefined,
    percentage: value('percentage'),
    minimumPrice: value('minimumPrice'),
    maximumPrice: value('maximumPrice'),
    eligibleProductIds: products ? products.split(',').map((id) => id.trim()).filter(Boolean) : [],
  };
  const outcome = await runOperation<{ coverageSettingsUpdate: { userErrors: UserErrorRows } }>(ops.updateCoverage, { input }, req.ctx);
  if (!outcome.ok) return coveragePage(req, { error: outcome.error.message });
  const errors = outcome.data.coverageSettingsUpdate.userErrors;
  return coveragePage(req, errors.length > 0 ? { error: describeUserErrors(errors) } : { done: 'Coverage saved.' });
}

// ------------------------------------------------------------------ webhooks

interface WebhookRow {
  id: string;
  url: string;
  topics: string[];
  enabled: boolean;
  createdAt: string;
}

async function webhooksPage(req: DashboardRequest, error?: string): Promise<DoorResponse> {
  const data = await run<{ webhookTopics: string[]; webhookSubscriptions: { nodes: WebhookRow[] } }>(req, ops.webhooks);
  const rows = data.webhookSubscriptions.nodes.map(
    (w) => html`<tr><td><a href="/admin/webhooks/${w.id}">${w.url}</a></td><td>${w.topics.join(' ')}</td><td>${w.enabled ? 'enabled' : 'disabled'}</td><td>${formatDate(w.createdAt)}</td></tr>`,
  );
  const topics = data.webhookTopics.map((t) => html`<label class="check"><input type="checkbox" name="topics" value="${t}"> ${t}</label>`);
  return view(
    req,
    error ? 400 : 200,
    'Webhooks',
    html`${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<div class="table"><table><thead><tr><th>URL</th><th>Topics</th><th>State</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table></div>
<h2>Add a webhook</h2>
<form method="post" action="/admin/webhooks" class="card">${csrfField(req.session.csrfToken)}
<label for="webhook-url">URL</label><input type="url" id="webhook-url" name="url" required>
<label for="webhook-secret">Secret (sent as the bearer token; optional)</label><input type="password" id="webhook-secret" name="secret" autocomplete="off">
<fieldset><legend>Topics</legend>${topics}</fieldset>
<button type="submit">Create webhook</button></form>`,
  );
}

async function createWebhook(req: DashboardRequest): Promise<DoorResponse> {
  const secret = req.form.get('secret');
  const input = { url: req.form.get('url') ?? '', topics: req.form.getAll('topics'), ...(secret ? { secret } : {}) };
  const outcome = await runOperation<{ webhookSubscriptionCreate: { id: string } }>(ops.createWebhook, { input }, req.ctx);
  if (!outcome.ok) return webhooksPage(req, outcome.error.message);
  return redirect(`/admin/webhooks/${encodeURIComponent(outcome.data.webhookSubscriptionCreate.id)}`);
}

interface DeliveryRow {
  id: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  event: { id: string; topic: string; subjectId: string };
  attempts: { attemptNumber: number; startedAt: string; durationMs: number; responseStatus: number | null; error: string | null }[];
}

async function webhookPage(req: DashboardRequest, id: string, message?: { error?: string; done?: string }): Promise<DoorResponse> {
  const data = await run<{ webhookSubscription: WebhookRow | null; webhookDeliveries: { nodes: DeliveryRow[] } }>(req, ops.webhook, { id });
  const w = data.webhookSubscription;
  if (!w) return notFound(req);
  const rows = data.webhookDeliveries.nodes.map(
    (d) => html`<tr><td>${formatDate(d.createdAt)}</td><td>${d.event.topic}</td><td><code>${d.event.id}</code></td><td>${d.status}</td><td>${d.attemptCount}</td>
<td>${d.attempts.map((a) => html`<div>#${a.attemptNumber} ${a.responseStatus ?? 'no response'} ${a.durationMs} ms ${a.error ?? ''}</div>`)}</td></tr>`,
  );
  return view(
    req,
    message?.error ? 400 : 200,
    'Webhook',
    html`${message?.error ? html`<div class="error" role="alert">${message.error}</div>` : ''}${message?.done ? html`<div class="notice" role="status">${message.done}</div>` : ''}
<section class="card"><p><strong>URL</strong> ${w.url}</p><p><strong>Topics</strong> ${w.topics.join(' ')}</p><p><strong>State</strong> ${w.enabled ? 'enabled' : 'disabled'}</p></section>
<h2>Replay</h2>
<form method="post" action="/admin/webhooks/${w.id}/replay" class="card">${csrfField(req.session.csrfToken)}
<label for="replay-since">Deliver again every event since (UTC)</label><input type="datetime-local" id="replay-since" name="since" required>
<button type="submit">Replay</button></form>
<h2>Delivery log</h2>
<div class="table"><table><thead><tr><th>Created</th><th>Topic</th><th>Event</th><th>Status</th><th>Attempts</th><th>Responses</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

async function replayWebhook(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const since = req.form.get('since') ?? '';
  // datetime-local sends no zone (and may omit seconds); the form says UTC.
  const instant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(since) ? `${since.length === 16 ? `${since}:00` : since}Z` : since;
  const outcome = await runOperation<{ webhookSubscriptionReplay: number }>(ops.replayWebhook, { id, since: instant }, req.ctx);
  if (!outcome.ok) {
    if (outcome.error.code === 'NOT_FOUND') return notFound(req);
    return webhookPage(req, id, { error: `Replay refused: ${outcome.error.code === 'BAD_USER_INPUT' ? 'give the date and time to replay from' : outcome.error.message}` });
  }
  const queued = outcome.data.webhookSubscriptionReplay;
  return webhookPage(req, id, { done: `${queued} ${queued === 1 ? 'delivery' : 'deliveries'} queued.` });
}

// ------------------------------------------------------------------ returns

interface ReturnRow {
  id: string;
  number: number;
  status: string;
  type: string;
  createdAt: string;
  updatedAt: string;
  /** Null for a return imported from another system. */
  order: { id: string; name: string } | null;
  total: { amount: string; currency: string };
}

function returnRow(r: ReturnRow): Html {
  return html`<tr data-return-id="${r.id}"><td><a href="/admin/returns/${r.id}">#${r.number}</a></td><td>${r.order ? html`<a href="/admin/orders/${r.order.id}">${r.order.name}</a>` : 'imported'}</td><td>${r.status}</td><td>${r.type}</td><td>${money(r.total)}</td><td>${formatDate(r.updatedAt)}</td></tr>`;
}

async function returnsPage(req: DashboardRequest): Promise<DoorResponse> {
  const status = RETURN_STATUSES.find((s) => s === req.query.get('status')) ?? '';
  // Links from before the search box name an order exactly (order_name=, orderName=): the same as a name: term.
  const orderName = req.query.get('order_name') || req.query.get('orderName') || '';
  const q = [req.query.get('q') ?? '', orderName ? searchTerm('name', orderName) : ''].filter(Boolean).join(' ');
  const result = await searchPage<ReturnRow>(req, 'returns', ops.returns, { status: status ? [status] : undefined, q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Returns',
    path: '/admin/returns',
    what: 'returns',
    q,
    hint: "Words match the order name, the shopper's e-mail, name and phone, tracking numbers, RMA references, tags, SKUs, titles and reasons.",
    fields: ['name:1001', 'email:', 'status:open', 'type:claim', 'tracking:', 'carrier:', 'rma:', 'sku:', 'reason:', 'tag:', 'created_at:>=2026-11-01'],
    filters: html`<label for="filter-status">Status</label><select id="filter-status" name="status"><option value="">any</option>${RETURN_STATUSES.map((s) => html`<option value="${s}"${s === status ? html` selected` : ''}>${s}</option>`)}</select>`,
    keep: { status },
    columns: ['Return', 'Order', 'Status', 'Type', 'Total', 'Updated'],
    row: returnRow,
    // The script refreshes the list from the event stream (liveReturns.ts); without it the page is a plain list.
    region: (list) => html`<div id="returns-list" aria-live="polite" data-live-events="${RETURN_EVENTS_PATH}">${list}</div>`,
    script: LIVE_RETURNS_SCRIPT_PATH,
  });
}

interface ReturnDetail extends ReturnRow {
  tags: string[];
  totalRefund: { amount: string; currency: string };
  totalStoreCredit: { amount: string; currency: string };
  order: { id: string; name: string; submittedCustomer: { name: string | null; email: string | null } | null } | null;
  externalReferenceId: string | null;
  customerEmail: string | null;
  items: { id: string; quantity: number; reason: string | null; outcome: string; removedAt: string | null; title: string; sku: string | null; amount: { amount: string; currency: string } | null }[];
  statusChanges: { operation: string; fromStatus: string | null; toStatus: string; createdAt: string }[];
  notes: { id: string; content: string; createdAt: string }[];
}

function tagsForm(req: DashboardRequest, ret: ReturnDetail, defined: string[]): Html {
  const boxes = defined.map(
    (name) => html`<label class="check"><input type="checkbox" name="tags" value="${name}"${ret.tags.includes(name) ? html` checked` : ''}> ${name}</label>`,
  );
  return html`<form method="post" action="/admin/returns/${ret.id}/tags" class="card">${csrfField(req.session.csrfToken)}
<fieldset><legend>Tags</legend>${boxes.length > 0 ? boxes : html`<p>The store has no tags yet.</p>`}</fieldset>
<label for="new-tag">New tag (defined for the store and added)</label><input type="text" id="new-tag" name="newTag" maxlength="100">
<button type="submit">Save tags</button></form>`;
}

async function returnPage(req: DashboardRequest, id: string, message?: { error?: string; done?: string }): Promise<DoorResponse> {
  const { return: ret, returnTags } = await run<{ return: ReturnDetail | null; returnTags: { name: string }[] }>(req, ops.returnDetail, { id });
  if (!ret) return notFound(req);
  const csrf = csrfField(req.session.csrfToken);
  const action = (name: string, label: string) =>
    html`<form method="post" action="/admin/returns/${ret.id}/${name}">${csrf}<button type="submit">${label}</button></form>`;
  const live = ret.items.filter((i) => !i.removedAt);
  const items = ret.items.map(
    (i) => html`<tr><td>${i.title}</td><td>${i.sku ?? ''}</td><td>${i.quantity}</td><td>${i.reason ?? ''}</td><td>${i.outcome}</td><td>${money(i.amount)}</td><td>${i.removedAt ? 'removed' : ''}</td></tr>`,
  );
  return view(
    req,
    message?.error ? 409 : 200,
    `Return #${ret.number}`,
    html`${message?.error ? html`<div class="error" role="alert">${message.error}</div>` : ''}${message?.done ? html`<div class="notice" role="status">${message.done}</div>` : ''}
<section class="card"><p><strong>Status</strong> <span id="return-status">${ret.status}</span> · <strong>Type</strong> ${ret.type}</p>
${ret.order
  ? html`<p><strong>Order</strong> <a href="/admin/orders/${ret.order.id}">${ret.order.name}</a> · ${ret.order.submittedCustomer?.name ?? ''} ${ret.order.submittedCustomer?.email ?? ''}</p>`
  : html`<p><strong>Imported</strong> ${ret.externalReferenceId ?? ''} · ${ret.customerEmail ?? ''}</p>`}
<p><strong>Total</strong> ${money(ret.total)} · <strong>Refunded</strong> ${money(ret.totalRefund)} · <strong>Store credit</strong> ${money(ret.totalStoreCredit)}</p>
<p><strong>Tags</strong> ${ret.tags.join(', ') || 'none'}</p></section>
<h2>Actions</h2>
<div class="actions">${action('process', 'Process')}${action('flag', 'Flag')}${action('close', 'Close (reject)')}${action('reset', 'Reset')}</div>
<h2>Items</h2>
<div class="table"><table><thead><tr><th>Item</th><th>SKU</th><th>Qty</th><th>Reason</th><th>Outcome</th><th>Amount</th><th></th></tr></thead><tbody>${items}</tbody></table></div>
${live.length > 1 ? html`<form method="post" action="/admin/returns/${ret.id}/remove" class="card">${csrf}<fieldset><legend>Remove items</legend>${live.map((i) => html`<label class="check"><input type="checkbox" name="items" value="${i.id}"> ${i.title}</label>`)}</fieldset><button type="submit" class="secondary">Remove selected items</button></form>` : ''}
<h2>Tags</h2>
${tagsForm(req, ret, returnTags.map((t) => t.name))}
<h2>State history</h2>
<ol>${ret.statusChanges.map((c) => html`<li>${formatDate(c.createdAt)}: ${c.operation} ${c.fromStatus ?? '—'} → ${c.toStatus}</li>`)}</ol>
<h2>Notes</h2>
<ul>${ret.notes.map((n) => html`<li>${formatDate(n.createdAt)}: ${n.content}</li>`)}</ul>
<form method="post" action="/admin/returns/${ret.id}/note" class="card">${csrf}<label for="note-content">Add a note</label><textarea id="note-content" name="content" maxlength="255" required></textarea><button type="submit">Add note</button></form>
${await objectHistory(req, `/admin/returns/${encodeURIComponent(ret.id)}`, 'RETURN', ret.id)}`,
  );
}

/** Defines the new tag, if one is named, then sets the return's tags to those ticked plus it. */
async function saveTags(req: DashboardRequest, id: string) {
  const newTag = (req.form.get('newTag') ?? '').trim();
  if (newTag) {
    const defined = await runOperation(ops.defineReturnTag, { name: newTag }, req.ctx);
    if (!defined.ok) return defined;
  }
  return runOperation(ops.returnTagsSet, { id, tags: [...req.form.getAll('tags'), ...(newTag ? [newTag] : [])] }, req.ctx);
}

const TRANSITIONS: Record<string, { operation: Operation; done: string }> = {
  process: { operation: ops.returnProcess, done: 'Return processed.' },
  flag: { operation: ops.returnFlag, done: 'Return flagged.' },
  close: { operation: ops.returnReject, done: 'Return closed.' },
  reset: { operation: ops.returnReset, done: 'Return reset.' },
};

async function returnAction(req: DashboardRequest, id: string, name: string): Promise<DoorResponse> {
  const transition = TRANSITIONS[name];
  let outcome;
  if (transition) outcome = await runOperation(transition.operation, { id }, req.ctx);
  else if (name === 'remove') outcome = await runOperation(ops.returnItemsRemove, { id, items: req.form.getAll('items') }, req.ctx);
  else if (name === 'note') outcome = await runOperation(ops.returnNoteAdd, { id, content: req.form.get('content') ?? '' }, req.ctx);
  else if (name === 'tags') outcome = await saveTags(req, id);
  else return notFound(req);
  if (!outcome.ok) {
    if (outcome.error.code === 'NOT_FOUND') return notFound(req);
    return returnPage(req, id, { error: outcome.error.message });
  }
  return redirect(`/admin/returns/${encodeURIComponent(id)}`);
}

// ------------------------------------------------------------------ orders

interface OrderRow {
  id: string;
  name: string;
  placedAt: string;
  totalPrice: { amount: string; currency: string } | null;
  submittedCustomer: { name: string | null; firstName: string | null; lastName: string | null; email: string | null; phoneNumber: string | null } | null;
}

/** The shopper's name as the order gave it: whole, or as first and last name. */
function shopperName(customer: OrderRow['submittedCustomer']): string {
  return customer?.name ?? [customer?.firstName, customer?.lastName].filter(Boolean).join(' ');
}

async function ordersPage(req: DashboardRequest): Promise<DoorResponse> {
  // Links from before the search box name an order exactly (name=): the same as a name: term.
  const name = req.query.get('name') || '';
  const q = [req.query.get('q') ?? '', name ? searchTerm('name', name) : ''].filter(Boolean).join(' ');
  const result = await searchPage<OrderRow>(req, 'orders', ops.orders, { q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Orders',
    path: '/admin/orders',
    what: 'orders',
    q,
    hint: "Words match the order name, the merchant's order id, the shopper's e-mail, name and phone, tags, SKUs and titles.",
    fields: ['name:1001', 'order_id:', 'email:', 'customer:', 'phone:', 'sku:', 'title:', 'tag:', 'created_at:>=2026-11-01', 'total:>100'],
    columns: ['Order', 'Placed', 'Customer', 'E-mail', 'Total'],
    row: (o) => html`<tr><td><a href="/admin/orders/${o.id}">${o.name}</a></td><td>${formatDate(o.placedAt)}</td><td>${shopperName(o.submittedCustomer)}</td><td>${o.submittedCustomer?.email ?? ''}</td><td>${money(o.totalPrice)}</td></tr>`,
  });
}

interface OrderDetail {
  id: string;
  name: string;
  externalId: string;
  placedAt: string;
  customerPortalToken: string;
  submittedCustomer: { name: string | null; email: string | null } | null;
  totalPrice: { amount: string; currency: string } | null;
  lineItems: { id: string; externalId: string; title: string; sku: string | null; quantity: number; returnableQuantity: number; price: { amount: string; currency: string } | null }[];
  fulfillments: {
    id: string;
    fulfillmentId: string;
    status: string;
    trackingCompany: string | null;
    trackingNumber: string | null;
    estimatedDeliveryDate: string | null;
    deliveredAt: string | null;
    createdAt: string;
    lineItems: { quantity: number; orderLineItem: { title: string } }[];
    trackingHistory: { status: string; message: string; datetime: string }[];
  }[];
}

function fulfillmentsSection(order: OrderDetail): Html {
  if (order.fulfillments.length === 0) return html`<p>Nothing has been fulfilled yet.</p>`;
  return html`${order.fulfillments.map(
    (f) => html`<section class="card"><p><strong>Fulfillment</strong> ${f.fulfillmentId} · <strong>Status</strong> ${f.status} · ${formatDate(f.createdAt)}</p>
<p><strong>Tracking</strong> ${f.trackingCompany ?? ''} ${f.trackingNumber ?? 'none'}${f.estimatedDeliveryDate ? html` · expected ${f.estimatedDeliveryDate}` : ''}${f.deliveredAt ? html` · delivered ${formatDate(f.deliveredAt)}` : ''}</p>
<ul>${f.lineItems.map((l) => html`<li>${l.quantity} × ${l.orderLineItem.title}</li>`)}</ul>
${f.trackingHistory.length > 0 ? html`<ol>${f.trackingHistory.map((e) => html`<li>${formatDate(e.datetime)}: ${e.status} ${e.message}</li>`)}</ol>` : ''}</section>`,
  )}`;
}

async function orderPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const { order } = await run<{ order: OrderDetail | null }>(req, ops.orderDetail, { id });
  if (!order) return notFound(req);
  const storeId = req.ctx.auth!.store.id;
  const portalLink = `/portal/${encodeURIComponent(storeId)}/orders/${encodeURIComponent(order.id)}?token=${encodeURIComponent(order.customerPortalToken)}`;
  const lines = order.lineItems.map(
    (l) => html`<tr><td>${l.title}</td><td>${l.sku ?? ''}</td><td>${l.quantity}</td><td>${l.returnableQuantity}</td><td>${money(l.price)}</td></tr>`,
  );
  return view(
    req,
    200,
    `Order ${order.name}`,
    html`<section class="card"><p><strong>Merchant order id</strong> ${order.externalId} · <strong>Placed</strong> ${formatDate(order.placedAt)}</p>
<p><strong>Customer</strong> ${order.submittedCustomer?.name ?? ''} ${order.submittedCustomer?.email ?? ''}</p>
<p><strong>Total</strong> ${money(order.totalPrice)}</p>
<p><a href="/admin/returns?${new URLSearchParams({ q: searchTerm('name', order.name) }).toString()}">Returns of this order</a> · <a href="${portalLink}">Shopper portal link</a></p></section>
<h2>Line items</h2>
<div class="table"><table><thead><tr><th>Item</th><th>SKU</th><th>Ordered</th><th>Returnable</th><th>Price</th></tr></thead><tbody>${lines}</tbody></table></div>
<h2>Fulfillments</h2>
${fulfillmentsSection(order)}
${await objectHistory(req, `/admin/orders/${encodeURIComponent(order.id)}`, 'ORDER', order.id)}`,
  );
}

// ------------------------------------------------------------------ customers

interface CustomerRow {
  id: string;
  email: string | null;
  name: string | null;
  phoneNumber: string | null;
  updatedAt: string;
}

async function customersPage(req: DashboardRequest): Promise<DoorResponse> {
  const q = req.query.get('q') ?? '';
  const result = await searchPage<CustomerRow>(req, 'customers', ops.customers, { q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Customers',
    path: '/admin/customers',
    what: 'customers',
    q,
    hint: 'Words match the e-mail, names, phone numbers (written any way) and custom field values.',
    fields: ['email:', 'name:', 'first_name:', 'last_name:', 'phone:', 'created_at:>=2026-11-01', 'updated_at:'],
    columns: ['E-mail', 'Name', 'Phone', 'Updated'],
    row: (c) => html`<tr><td><a href="/admin/customers/${c.id}">${c.email ?? 'no e-mail'}</a></td><td>${c.name ?? ''}</td><td>${c.phoneNumber ?? ''}</td><td>${formatDate(c.updatedAt)}</td></tr>`,
  });
}

interface CustomerDetail extends CustomerRow {
  firstName: string | null;
  lastName: string | null;
  phoneNumbers: string[];
  customFields: Record<string, unknown>;
  createdAt: string;
  location: Record<'street1' | 'street2' | 'city' | 'state' | 'stateCode' | 'postalCode' | 'country' | 'countryCode', string | null> | null;
  subscriptions: { channel: string; kind: string; status: string; address: string; changedAt: string }[];
  redactedAt: string | null;
}

interface CustomerReturnRow extends ReturnRow {
  customerEmail: string | null;
  order: { id: string; name: string; submittedCustomer: { email: string | null; phoneNumber: string | null } | null } | null;
}

const digitsOf = (phone: string) => phone.replace(/\D/g, '');

/**
 * The search that finds a customer's orders and returns: its e-mail (a whole address finds
 * exactly that address), else its phone numbers. A phone term matches a part of a number, so
 * `mine` then keeps only the customer's own numbers.
 */
function activitySearch(customer: CustomerDetail): { q: string; mine?(phone: string | null | undefined): boolean } | null {
  const email = customer.email?.toLowerCase();
  if (email) return { q: searchTerm('email', email) };
  const phones = customer.phoneNumbers.map(digitsOf).filter((digits) => digits.length >= 7);
  if (phones.length === 0) return null;
  return {
    q: customer.phoneNumbers.slice(0, 10).map((phone) => searchTerm('phone', phone)).join(' OR '),
    // A number stored with its country code matches one stored without it.
    mine: (phone) => {
      const digits = phone ? digitsOf(phone) : '';
      return digits.length >= 7 && phones.some((own) => own.endsWith(digits) || digits.endsWith(own));
    },
  };
}

function customFieldValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The customer's page; `outcome` is what an erasure asked from it just did (or why it was refused). */
async function customerPage(req: DashboardRequest, id: string, outcome?: { status: number; message: Html }): Promise<DoorResponse> {
  const found = await runOperation<{ node: Partial<CustomerDetail> | null }>(ops.customerDetail, { id }, req.ctx);
  // An id that is no id of the service is as absent as another store's.
  if (!found.ok) {
    if (found.error.code === 'BAD_USER_INPUT' || found.error.code === 'NOT_FOUND') return notFound(req);
    throw failureOf(found.error);
  }
  if (!found.data.node?.id) return notFound(req);
  const customer = found.data.node as CustomerDetail;
  const search = activitySearch(customer);
  const activity = search
    ? await run<{ orders: Connection<OrderRow>; returns: Connection<CustomerReturnRow> }>(req, ops.customerActivity, { q: search.q })
    : { orders: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } }, returns: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } };
  const mine = search?.mine;
  const orders = mine ? activity.orders.nodes.filter((o) => mine(o.submittedCustomer?.phoneNumber)) : activity.orders.nodes;
  const returns = mine ? activity.returns.nodes.filter((r) => mine(r.order?.submittedCustomer?.phoneNumber)) : activity.returns.nodes;
  const more = (list: string, connection: Connection<unknown>) =>
    search ? html`<p>${connection.pageInfo.hasNextPage ? 'The 50 newest are shown. ' : ''}<a href="/admin/${list}?${new URLSearchParams({ q: search.q }).toString()}">Search ${list} for this customer</a></p>` : '';
  const location = customer.location;
  const place = location
    ? [location.street1, location.street2, location.city, location.stateCode ?? location.state, location.postalCode, location.countryCode ?? location.country].filter(Boolean).join(', ')
    : '';
  const fields = Object.entries(customer.customFields ?? {});
  return view(
    req,
    outcome?.status ?? 200,
    customer.name || customer.email || customer.phoneNumber || 'Customer',
    html`${outcome?.message ?? ''}<section class="card"><p><strong>E-mail</strong> ${customer.email ?? 'none'}</p>
<p><strong>Name</strong> ${[customer.firstName, customer.lastName].filter(Boolean).join(' ') || 'none'}</p>
<p><strong>Phone</strong> ${customer.phoneNumbers.join(', ') || 'none'}</p>
${place ? html`<p><strong>Location</strong> ${place}</p>` : ''}
<p><strong>Created</strong> ${formatDate(customer.createdAt)} · <strong>Updated</strong> ${formatDate(customer.updatedAt)}</p></section>
<h2>Custom fields</h2>
${fields.length > 0
  ? html`<div class="table"><table id="custom-fields"><thead><tr><th>Field</th><th>Value</th></tr></thead><tbody>${fields.map(([name, value]) => html`<tr><td>${name}</td><td>${customFieldValue(value)}</td></tr>`)}</tbody></table></div>`
  : html`<p>No custom fields.</p>`}
<h2>Subscriptions</h2>
${customer.subscriptions.length > 0
  ? html`<div class="table"><table><thead><tr><th>Channel</th><th>Kind</th><th>Status</th><th>Address</th><th>Changed</th></tr></thead><tbody>${customer.subscriptions.map((c) => html`<tr><td>${c.channel}</td><td>${c.kind}</td><td>${c.status}</td><td>${c.address}</td><td>${formatDate(c.changedAt)}</td></tr>`)}</tbody></table></div>`
  : html`<p>No consent recorded.</p>`}
<h2>Orders</h2>
${orders.length > 0
  ? html`<div class="table"><table id="customer-orders"><thead><tr><th>Order</th><th>Placed</th><th>Total</th></tr></thead><tbody>${orders.map((o) => html`<tr><td><a href="/admin/orders/${o.id}">${o.name}</a></td><td>${formatDate(o.placedAt)}</td><td>${money(o.totalPrice)}</td></tr>`)}</tbody></table></div>`
  : html`<p>No orders.</p>`}
${more('orders', activity.orders)}
<h2>Returns</h2>
${returns.length > 0
  ? html`<div class="table"><table id="customer-returns"><thead><tr><th>Return</th><th>Order</th><th>Status</th><th>Type</th><th>Total</th><th>Updated</th></tr></thead><tbody>${returns.map(returnRow)}</tbody></table></div>`
  : html`<p>No returns.</p>`}
${more('returns', activity.returns)}
${privacySection(req, customer)}`,
  );
}

// ------------------------------------------------------------------ a shopper's data: export and erasure

/** The shopper's requests about their data: a download of all of it, and its erasure (which asks to be confirmed). */
function privacySection(req: DashboardRequest, customer: CustomerDetail): Html {
  const erased = customer.redactedAt ? html`<p id="customer-erased"><strong>Personal data erased</strong> ${formatDate(customer.redactedAt)}</p>` : '';
  return html`<h2>Personal data</h2>
<section class="card">${erased}
<p>Everything the store holds about this customer (its orders, returns, events, webhook deliveries and history), as one JSON file.</p>
<form method="get" action="/admin/customers/${customer.id}/export"><button type="submit" id="customer-export">Export personal data</button></form>
${customer.redactedAt
  ? ''
  : html`<form method="post" action="/admin/customers/${customer.id}/erase">${csrfField(req.session.csrfToken)}
<p>Erasing replaces this customer's names, e-mail, phone numbers, addresses, notes and custom fields everywhere they are kept, keeping amounts and dates for the accounts. It cannot be undone.</p>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I understand that erasure cannot be undone</label>
<button type="submit" id="customer-erase">Erase personal data</button></form>`}</section>`;
}

async function exportCustomer(req: DashboardRequest, id: string): Promise<DoorResponse> {
  return customerDataExportAnswer(req.ctx, { customerId: id }, {
    pageSize: req.ctx.maxPageSize,
    headers: SECURITY_HEADERS,
    refused: (failure) => {
      if (failure.error.code === 'BAD_USER_INPUT' || failure.error.code === 'NOT_FOUND') return notFound(req);
      const refusal = failureOf(failure.error);
      return view(req, refusal.status, 'Error', html`<div class="error" role="alert">${refusal.message}</div>`);
    },
  });
}

type ErasureCountRows = Record<string, number>;

function erasureSummary(total: number, counts: ErasureCountRows): Html {
  const changed = Object.entries(counts).filter(([, n]) => n > 0);
  return html`<div class="notice" role="status" id="erasure-result"><p>${total === 0 ? 'Nothing was left to erase.' : `Erased: ${total} records changed.`}</p>
${changed.length > 0 ? html`<ul>${changed.map(([kind, n]) => html`<li>${kind}: ${n}</li>`)}</ul>` : ''}</div>`;
}

async function eraseCustomerData(req: DashboardRequest, id: string): Promise<DoorResponse> {
  if (req.form.get('confirm') !== 'yes') {
    return customerPage(req, id, { status: 400, message: html`<div class="error" role="alert">Tick the box to confirm: erasure cannot be undone.</div>` });
  }
  const outcome = await runOperation<{ customerErase: { total: number; counts: ErasureCountRows } }>(ops.customerErase, { id }, req.ctx);
  if (!outcome.ok) {
    if (outcome.error.code === 'BAD_USER_INPUT' || outcome.error.code === 'NOT_FOUND') return notFound(req);
    const refusal = failureOf(outcome.error);
    return customerPage(req, id, { status: refusal.status, message: html`<div class="error" role="alert">${refusal.message}</div>` });
  }
  return customerPage(req, id, { status: 200, message: erasureSummary(outcome.data.customerErase.total, outcome.data.customerErase.counts) });
}

/** Settings → Privacy: the erasure of every shopper's data of the store, for a merchant that leaves. */
function privacySettingsPage(req: DashboardRequest, result?: { status: number; message: Html }): DoorResponse {
  return view(
    req,
    result?.status ?? 200,
    'Settings → Privacy',
    html`${result?.message ?? ''}<p>A shopper's data is exported or erased from their customer page.</p>
<h2>Leaving the service</h2>
<form method="post" action="/admin/settings/privacy/erase-store" class="card">${csrfField(req.session.csrfToken)}
<p>Erases every shopper's personal data in the store: names, e-mails, phone numbers, addresses, notes, custom fields and events, and the values in the store's history. Orders and returns keep their amounts, dates, products and statuses. It cannot be undone.</p>
<label for="confirm-store">Type the store's id to confirm</label><input type="text" id="confirm-store" name="confirmStoreId" required autocomplete="off">
<button type="submit" id="store-erase">Erase every shopper's data</button></form>`,
  );
}

async function eraseStoreData(req: DashboardRequest): Promise<DoorResponse> {
  const outcome = await runOperation<{ storeCustomerDataErase: { total: number; counts: ErasureCountRows } }>(
    ops.storeCustomerDataErase,
    { confirmStoreId: req.form.get('confirmStoreId') ?? '' },
    req.ctx,
  );
  if (!outcome.ok) {
    const refusal = failureOf(outcome.error);
    return privacySettingsPage(req, { status: refusal.status, message: html`<div class="error" role="alert">${refusal.message}</div>` });
  }
  const { total, counts } = outcome.data.storeCustomerDataErase;
  return privacySettingsPage(req, { status: 200, message: erasureSummary(total, counts) });
}

// ------------------------------------------------------------------ products

interface ProductRow {
  id: string;
  title: string;
  sku: string | null;
  vendor: string | null;
  price: { amount: string; currency: string } | null;
  inventoryLevels: { nodes: { available: number }[]; pageInfo: { hasNextPage: boolean } };
}

/** What is available to sell across the product's locations; negative when it is oversold. */
function totalAvailable(levels: ProductRow['inventoryLevels']): Html {
  if (levels.nodes.length === 0) return html`<span title="No stock at any location">—</span>`;
  const total = levels.nodes.reduce((sum, level) => sum + level.available, 0);
  const shown = `${total}${levels.pageInfo.hasNextPage ? '+' : ''}`;
  return total < 0 ? html`<strong class="oversold">${shown} (oversold)</strong>` : html`${shown}`;
}

async function productsPage(req: DashboardRequest): Promise<DoorResponse> {
  const q = req.query.get('q') ?? '';
  const result = await searchPage<ProductRow>(req, 'products', ops.products, { q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Products',
    path: '/admin/products',
    what: 'products',
    q,
    hint: 'Words match the title, SKU, UPC and barcodes, vendor, tags and option values.',
    fields: ['title:', 'sku:', 'barcode:', 'vendor:', 'option:blue', 'tag:', 'price:<20', 'created_at:>=2026-11-01'],
    columns: ['Title', 'SKU', 'Vendor', 'Price', 'Available'],
    row: (p) => html`<tr><td><a href="/admin/products/${p.id}">${p.title}</a></td><td>${p.sku ?? ''}</td><td>${p.vendor ?? ''}</td><td>${money(p.price)}</td><td>${totalAvailable(p.inventoryLevels)}</td></tr>`,
  });
}

interface ProductDetail {
  id: string;
  title: string;
  sku: string | null;
  upc: string | null;
  barcodes: string[];
  vendor: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  price: { amount: string; currency: string } | null;
  cost: { amount: string; currency: string } | null;
  productFamily: { id: string; title: string } | null;
  options: { name: string; value: string }[];
  inventoryLevels: {
    nodes: { id: string; quantity: number; available: number; committed: number; reserved: number; updatedAt: string; location: { id: string; name: string } | null }[];
    pageInfo: { hasNextPage: boolean };
  };
}

async function productPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const found = await runOperation<{ product: ProductDetail | null }>(ops.productDetail, { id }, req.ctx);
  if (!found.ok) {
    if (found.error.code === 'BAD_USER_INPUT' || found.error.code === 'NOT_FOUND') return notFound(req);
    throw failureOf(found.error);
  }
  const product = found.data.product;
  if (!product) return notFound(req);
  const levels = product.inventoryLevels.nodes;
  const sum = (key: 'quantity' | 'available' | 'committed' | 'reserved') => levels.reduce((total, level) => total + level[key], 0);
  const available = (n: number) => (n < 0 ? html`<strong>${n}</strong> oversold` : html`${n}`);
  const stock = levels.map(
    (l) => html`<tr${l.available < 0 ? html` class="oversold"` : ''} data-level-id="${l.id}"><td>${l.location?.name ?? 'a location this store cannot see'}</td><td class="num">${l.quantity}</td><td class="num">${available(l.available)}</td><td class="num">${l.committed}</td><td class="num">${l.reserved}</td><td>${formatDate(l.updatedAt)}</td></tr>`,
  );
  return view(
    req,
    200,
    product.title,
    html`<section class="card"><p><strong>SKU</strong> ${product.sku ?? 'none'} · <strong>Vendor</strong> ${product.vendor ?? 'none'}</p>
<p><strong>Price</strong> ${money(product.price) || 'not set'} · <strong>Cost</strong> ${money(product.cost) || 'not set'}</p>
<p><strong>UPC</strong> ${product.upc ?? 'none'} · <strong>Barcodes</strong> ${product.barcodes.join(', ') || 'none'}</p>
${product.productFamily ? html`<p><strong>Variant of</strong> ${product.productFamily.title}</p>` : ''}
<p><strong>Tags</strong> ${product.tags.join(', ') || 'none'}</p>
<p><strong>Created</strong> ${formatDate(product.createdAt)} · <strong>Updated</strong> ${formatDate(product.updatedAt)}</p></section>
<h2>Options</h2>
${product.options.length > 0
  ? html`<div class="table"><table id="product-options"><thead><tr><th>Option</th><th>Value</th></tr></thead><tbody>${product.options.map((o) => html`<tr><td>${o.name}</td><td>${o.value}</td></tr>`)}</tbody></table></div>`
  : html`<p>No options: a standalone product.</p>`}
<h2>Stock per location</h2>
${levels.length > 0
  ? html`<div class="table"><table id="product-stock"><thead><tr><th>Location</th><th class="num">Quantity</th><th class="num">Available</th><th class="num">Committed</th><th class="num">Reserved</th><th>Changed</th></tr></thead>
<tbody>${stock}</tbody>
<tfoot><tr${sum('available') < 0 ? html` class="oversold"` : ''}><th scope="row">All locations${product.inventoryLevels.pageInfo.hasNextPage ? ' (first 100)' : ''}</th><td class="num">${sum('quantity')}</td><td class="num">${available(sum('available'))}</td><td class="num">${sum('committed')}</td><td class="num">${sum('reserved')}</td><td></td></tr></tfoot></table></div>
<p class="hint">Available is quantity less committed and reserved; below zero, orders committed more than is on hand.</p>`
  : html`<p>No stock at any location.</p>`}
${await objectHistory(req, `/admin/products/${encodeURIComponent(product.id)}`, 'PRODUCT', product.id)}`,
  );
}

// ------------------------------------------------------------------ routing

/** Dashboard pages after sign-in; `segments` is the path below /admin. */
export async function dashboard(req: DashboardRequest): Promise<DoorResponse> {
  const [section, id, action, extra] = req.segments;
  const get = req.method === 'GET' || req.method === 'HEAD';
  try {
    if (section === 'settings' && id === 'developer') {
      if (!action && get) return await developerPage(req);
      if (action === 'api-clients' && !extra && req.method === 'POST') return await createClient(req);
      if (action === 'api-clients' && extra && get && req.segments.length === 4) return await apiClientPage(req, extra);
      if (action === 'api-clients' && extra && req.method === 'POST' && req.segments[4] === 'revoke' && req.segments.length === 5) {
        const outcome = await runOperation(ops.apiClientRevoke, { id: extra }, req.ctx);
        if (!outcome.ok) return outcome.error.code === 'NOT_FOUND' ? notFound(req) : await developerPage(req, undefined, outcome.error.message);
        return redirect('/admin/settings/developer');
      }
    }
    if (section === 'settings' && id === 'coverage') {
      if (!action && get) return await coveragePage(req);
      if (action && !extra && req.method === 'POST') return await saveCoverage(req, action);
    }
    if (section === 'settings' && id === 'privacy') {
      if (!action && get) return privacySettingsPage(req);
      if (action === 'erase-store' && !extra && req.method === 'POST') return await eraseStoreData(req);
    }
    if (section === 'webhooks') {
      if (!id && get) return await webhooksPage(req);
      if (!id && req.method === 'POST') return await createWebhook(req);
      if (id && !action && get) return await webhookPage(req, id);
      if (id && action === 'replay' && !extra && req.method === 'POST') return await replayWebhook(req, id);
    }
    if (section === 'returns') {
      if (!id && get) return await returnsPage(req);
      if (id && !action && get) return await returnPage(req, id);
      if (id && action && !extra && req.method === 'POST') return await returnAction(req, id, action);
    }
    if (section === 'orders') {
      if (!id && get) return await ordersPage(req);
      if (id && !action && get) return await orderPage(req, id);
    }
    if (section === 'customers') {
      if (!id && get) return await customersPage(req);
      if (id && !action && get) return await customerPage(req, id);
      if (id && action === 'export' && !extra && get) return await exportCustomer(req, id);
      if (id && action === 'erase' && !extra && req.method === 'POST') return await eraseCustomerData(req, id);
    }
    if (section === 'products') {
      if (!id && get) return await productsPage(req);
      if (id && !action && get) return await productPage(req, id);
    }
    if (!section && get) return redirect('/admin/returns');
    return notFound(req);
  } catch (error) {
    if (error instanceof PageFailure) return view(req, error.status, error.status === 404 ? 'Not found' : 'Error', html`<div class="error" role="alert">${error.message}</div>`);
    throw error;
  }
}
