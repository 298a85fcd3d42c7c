// The returns queue: every return of the store, searched, sorted, narrowed by status tab (each
// with its count for the search), updated live; and bulk actions on the returns chosen or on
// every return the search matches, with a page that follows each action to its summary.
import crypto from 'node:crypto';
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html, money, type Html } from '../html.ts';
import { LIVE_RETURNS_SCRIPT_PATH, RETURN_EVENTS_PATH } from '../liveReturns.ts';
import { ops } from '../operations.ts';
import { afterAction, dataTable, failureOf, notFound, run, searchListView, searchPage, searchTerm, view, type DashboardRequest } from './kit.ts';

export interface ReturnRow {
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

/** The compact row other pages list a few returns with (a customer's returns). */
export const RETURN_COLUMNS = ['Return', 'Order', 'Status', 'Type', 'Total', 'Updated'];

export function returnCells(r: ReturnRow): Html[] {
  return [
    html`<a href="/admin/returns/${r.id}">#${r.number}</a>`,
    r.order ? html`<a href="/admin/orders/${r.order.id}">${r.order.name}</a>` : html`imported`,
    html`${r.status}`,
    html`${r.type}`,
    html`${money(r.total)}`,
    html`${formatDate(r.updatedAt)}`,
  ];
}

export const returnRowAttributes = (r: ReturnRow): Html => html` data-return-id="${r.id}"`;

// ------------------------------------------------------------------ the queue

interface QueueRow extends ReturnRow {
  customerEmail: string | null;
  customerFirstName: string | null;
  customerLastName: string | null;
  order: (ReturnRow['order'] & { submittedCustomer: { name: string | null; email: string | null } | null }) | null;
  items: { quantity: number; reason: string | null; outcome: string }[];
}

/** The orders the queue can be read in: a GET parameter (`sort`), served by the returns connection's own order. */
export const RETURN_SORTS = {
  'updated-desc': { label: 'Last changed, newest first', sortKey: 'UPDATED_AT', reverse: false },
  'updated-asc': { label: 'Last changed, longest unchanged first', sortKey: 'UPDATED_AT', reverse: true },
  'age-desc': { label: 'Age, oldest first', sortKey: 'CREATED_AT', reverse: true },
  'age-asc': { label: 'Age, newest first', sortKey: 'CREATED_AT', reverse: false },
  'total-desc': { label: 'Total, largest first', sortKey: 'TOTAL', reverse: false },
  'total-asc': { label: 'Total, smallest first', sortKey: 'TOTAL', reverse: true },
} as const;
type SortName = keyof typeof RETURN_SORTS;
const DEFAULT_SORT: SortName = 'updated-desc';

/** The tab of the returns not deleted: the queue as it opens. */
const ALL_TAB = '';
const DELETED = 'DELETED';

export const QUEUE_COLUMNS = ['Choose', 'Return', 'Customer', 'Items', 'Reasons', 'Requested outcome', 'Status', 'Total', 'Age', 'Last changed'];

function customerOf(r: QueueRow): string {
  const submitted = r.order?.submittedCustomer;
  const imported = [r.customerFirstName, r.customerLastName].filter(Boolean).join(' ');
  return submitted?.name || submitted?.email || imported || r.customerEmail || '—';
}

const distinct = (values: (string | null)[]) => [...new Set(values.filter((value): value is string => Boolean(value)))];

/** How long ago `createdAt` was, in the largest whole unit that fits (as a queue is triaged by). */
export function ageOf(createdAt: string, now: number): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(createdAt)) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} days`;
}

function queueCells(r: QueueRow, now: number): Html[] {
  const units = r.items.reduce((sum, item) => sum + item.quantity, 0);
  return [
    html`<input type="checkbox" name="id" value="${r.id}" form="bulk-action" aria-label="Choose return #${r.number}">`,
    html`<a href="/admin/returns/${r.id}">#${r.number}</a>${r.order ? html` <span class="hint">${r.order.name}</span>` : html` <span class="hint">imported</span>`}`,
    html`${customerOf(r)}`,
    html`${units}`,
    html`${distinct(r.items.map((item) => item.reason)).join('; ') || '—'}`,
    html`${distinct(r.items.map((item) => item.outcome.toLowerCase())).join(', ')}`,
    html`${r.status}`,
    html`${money(r.total)}`,
    html`<time datetime="${r.createdAt}">${ageOf(r.createdAt, now)}</time>`,
    html`${formatDate(r.updatedAt)}`,
  ];
}

interface StatusCount {
  status: string;
  count: number;
}

function queueLink(params: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== '')).toString();
  return `/admin/returns${query ? `?${query}` : ''}`;
}

function statusTabs(counts: StatusCount[], chosen: string, q: string, sort: string): Html {
  const notDeleted = counts.filter((c) => c.status !== DELETED).reduce((sum, c) => sum + c.count, 0);
  const tabs = [{ status: ALL_TAB, label: 'All but deleted', count: notDeleted }, ...counts.map((c) => ({ ...c, label: c.status }))];
  return html`<nav aria-label="Returns by status"><ul class="tabs">${tabs.map(
    (tab) =>
      html`<li><a href="${queueLink({ status: tab.status, q, sort: sort === DEFAULT_SORT ? '' : sort })}"${tab.status === chosen ? html` aria-current="page"` : ''} data-status-tab="${tab.status || 'ALL'}">${tab.label} <span class="count">${tab.count}</span></a></li>`,
  )}</ul></nav>`;
}

function bulkForm(req: DashboardRequest, q: string, statuses: string[], matching: number, tags: string[]): Html {
  return html`<form method="post" action="/admin/returns/bulk" id="bulk-action" class="card bulk">${csrfField(req.session.csrfToken)}
<input type="hidden" name="key" value="${crypto.randomUUID()}"><input type="hidden" name="q" value="${q}">${statuses.map((s) => html`<input type="hidden" name="match_status" value="${s}">`)}
<details><summary>Act on returns: flag, close, process, tag or note the chosen returns, or all ${matching} of this search and tab</summary>
<fieldset><legend>Act on returns</legend>
<label class="check"><input type="radio" name="scope" value="chosen" checked> The returns chosen below</label>
<label class="check"><input type="radio" name="scope" value="matching"> All ${matching} returns of this search and tab</label>
<div class="bulk-fields"><div><label for="bulk-what">Action</label><select id="bulk-what" name="action">
<option value="FLAG">Flag</option><option value="CLOSE">Close (reject)</option><option value="PROCESS">Process</option><option value="TAG">Add a tag</option><option value="NOTE">Add a note</option></select></div>
<div><label for="bulk-tag">Tag (for Add a tag)</label><select id="bulk-tag" name="tag">${tags.length ? tags.map((t) => html`<option>${t}</option>`) : html`<option value="">no tags defined</option>`}</select></div>
<div><label for="bulk-note">Note (for Add a note)</label><input type="text" id="bulk-note" name="note" maxlength="255"></div></div>
<p class="hint" id="bulk-hint">Each return is acted on by itself, as from its own page; those the action does not apply to are listed after. At most 1,000 returns per action.</p>
<button type="submit" aria-describedby="bulk-hint">Apply to returns</button></fieldset></details></form>`;
}

export async function returnsPage(req: DashboardRequest): Promise<DoorResponse> {
  // Links from before the search box name an order exactly (order_name=, orderName=): the same as a name: term.
  const orderName = req.query.get('order_name') || req.query.get('orderName') || '';
  const q = [req.query.get('q') ?? '', orderName ? searchTerm('name', orderName) : ''].filter(Boolean).join(' ');
  const sortName: SortName = (Object.keys(RETURN_SORTS) as SortName[]).find((name) => name === req.query.get('sort')) ?? DEFAULT_SORT;
  const sort = RETURN_SORTS[sortName];
  // A search the service refuses leaves the tabs out; the list below shows why beside the box.
  const tabsOutcome = await runOperation<{ returnStatusCounts: StatusCount[]; returnTags: { name: string }[] }>(ops.returnQueueTabs, { q: q || undefined }, req.ctx);
  if (!tabsOutcome.ok && tabsOutcome.error.code !== 'BAD_USER_INPUT') throw failureOf(tabsOutcome.error);
  const counts = tabsOutcome.ok ? tabsOutcome.data.returnStatusCounts : [];
  // A refused search has no tabs to check the status against: the one asked is kept for the form sent back to be mended.
  const asked = req.query.get('status') ?? ALL_TAB;
  const status = tabsOutcome.ok ? (counts.find((c) => c.status === asked)?.status ?? ALL_TAB) : /^[A-Z_]{1,20}$/.test(asked) ? asked : ALL_TAB;
  const statuses = status ? [status] : counts.filter((c) => c.status !== DELETED).map((c) => c.status);
  const matching = counts.filter((c) => statuses.includes(c.status)).reduce((sum, c) => sum + c.count, 0);
  const result = await searchPage<QueueRow>(req, 'returns', ops.returns, {
    status: statuses,
    q: q || undefined,
    after: req.query.get('after') || undefined,
    sortKey: sort.sortKey,
    reverse: sort.reverse,
  });
  const now = Date.now();
  const keep = { status, sort: sortName === DEFAULT_SORT ? '' : sortName };
  return searchListView<QueueRow>(req, result, {
    title: 'Returns',
    path: '/admin/returns',
    exportPath: '/admin/exports/returns',
    what: 'returns',
    q,
    hint: "Words match the order name, the shopper's e-mail, name and phone, tracking numbers, RMA references, tags, SKUs, titles and reasons.",
    fields: ['name:1001', 'email:', 'status:open', 'type:claim', 'tracking:', 'carrier:', 'rma:', 'sku:', 'reason:', 'tag:', 'created_at:>=2026-11-01'],
    filters: html`<input type="hidden" name="status" value="${status}"><label for="sort">Sort by</label><select id="sort" name="sort">${(Object.keys(RETURN_SORTS) as SortName[]).map(
      (name) => html`<option value="${name}"${name === sortName ? html` selected` : ''}>${RETURN_SORTS[name].label}</option>`,
    )}</select>`,
    keep,
    columns: QUEUE_COLUMNS,
    cells: (r) => queueCells(r, now),
    rowAttributes: returnRowAttributes,
    // The script refreshes the list from the event stream (liveReturns.ts); without it the page is a plain list.
    region: (list) => html`${statusTabs(counts, status, q, sortName)}
${bulkForm(req, q, statuses, matching, tabsOutcome.ok ? tabsOutcome.data.returnTags.map((t) => t.name) : [])}
<div id="returns-list" aria-live="polite" data-live-events="${RETURN_EVENTS_PATH}">${list}</div>`,
    script: LIVE_RETURNS_SCRIPT_PATH,
  });
}

// ------------------------------------------------------------------ bulk actions

interface BulkState {
  key: string;
  action: 'FLAG' | 'CLOSE' | 'PROCESS' | 'TAG' | 'NOTE';
  argument: string | null;
  state: 'RUNNING' | 'DONE' | 'STALLED';
  total: number;
  doneCount: number;
  refusedCount: number;
  createdAt: string;
  updatedAt: string;
  refused: { returnId: string; number: number; refusal: string }[];
}

const DONE_WORD: Record<BulkState['action'], string> = { FLAG: 'flagged', CLOSE: 'closed', PROCESS: 'processed', TAG: 'tagged', NOTE: 'given the note' };
const DOING_WORD: Record<BulkState['action'], string> = { FLAG: 'Flagging', CLOSE: 'Closing', PROCESS: 'Processing', TAG: 'Tagging', NOTE: 'Adding the note to' };
const ACTION_NAME: Record<BulkState['action'], string> = { FLAG: 'Flag', CLOSE: 'Close', PROCESS: 'Process', TAG: 'Add a tag', NOTE: 'Add a note' };
/** Refusals named in the summary line; the table under it lists every one. */
const REFUSALS_IN_SUMMARY = 5;
/** How often a running action's page reads itself again (the HTTP Refresh header: no script, and the CSP has nothing to say about it). */
const REFRESH_SECONDS = 3;

/** "41 processed, 2 refused: return #12 is complete: …; return #15 …" */
export function bulkSummary(state: BulkState): string {
  const head = `${state.doneCount} ${DONE_WORD[state.action]}, ${state.refusedCount} refused`;
  if (state.refused.length === 0) return `${head}.`;
  const named = state.refused.slice(0, REFUSALS_IN_SUMMARY).map((r) => r.refusal);
  const more = state.refused.length > REFUSALS_IN_SUMMARY ? `; and ${state.refused.length - REFUSALS_IN_SUMMARY} more, listed below` : '';
  return `${head}: ${named.join('; ')}${more}.`;
}

/** POST /admin/returns/bulk: starts the action (or, for a key already used, finds the one it started) and shows its page. */
export async function startBulkAction(req: DashboardRequest): Promise<DoorResponse> {
  const form = req.form;
  const q = form.get('q') ?? '';
  const statuses = form.getAll('match_status');
  const action = (form.get('action') ?? '').toUpperCase();
  const back = queueLink({ q, status: statuses.length === 1 ? statuses[0] : '' });
  const matching = form.get('scope') === 'matching';
  const outcome = await runOperation<{ returnsBulkAction: { key: string } }>(
    ops.returnsBulkAction,
    {
      key: form.get('key') ?? '',
      action,
      argument: action === 'TAG' ? form.get('tag') : action === 'NOTE' ? form.get('note') : null,
      ...(matching ? { matching: { query: q || null, status: statuses } } : { ids: form.getAll('id') }),
    },
    req.ctx,
  );
  if (!outcome.ok) {
    if (outcome.error.code === 'BAD_USER_INPUT') return afterAction(req, back, { error: outcome.error.message });
    throw failureOf(outcome.error);
  }
  return afterAction(req, `/admin/returns/bulk/${encodeURIComponent(outcome.data.returnsBulkAction.key)}`, {});
}

/** GET /admin/returns/bulk/:key: how far the action got, then its summary and every refusal. */
export async function bulkActionPage(req: DashboardRequest, key: string): Promise<DoorResponse> {
  const { returnBulkAction: state } = await run<{ returnBulkAction: BulkState | null }>(req, ops.returnBulkAction, { key });
  if (!state) return notFound(req);
  const acted = state.doneCount + state.refusedCount;
  const what = html`${DOING_WORD[state.action]} ${state.total} returns${state.argument ? html` (${state.argument})` : ''}`;
  const refusals = state.refused.length
    ? html`<h2>Refused</h2>${dataTable('Refused returns', ['Return', 'Why'], state.refused.map((r) => html`<tr><td data-label="Return"><a href="/admin/returns/${r.returnId}">#${r.number}</a></td><td data-label="Why">${r.refusal}</td></tr>`))}`
    : '';
  const back = html`<p><a href="/admin/returns">Back to the returns</a></p>`;
  if (state.state === 'RUNNING') {
    const body = html`<p>${what}.</p>
<p role="status"><label for="bulk-progress">${acted} of ${state.total} done</label> <progress id="bulk-progress" max="${state.total}" value="${acted}">${acted} of ${state.total}</progress></p>
<p class="hint">This page reads itself again every ${REFRESH_SECONDS} seconds until the action is done. <a href="/admin/returns/bulk/${encodeURIComponent(key)}">Refresh now</a></p>${refusals}${back}`;
    const response = view(req, 200, 'Bulk action', body);
    return { ...response, headers: { ...response.headers, refresh: String(REFRESH_SECONDS) } };
  }
  const stalled = state.state === 'STALLED'
    ? html`<div class="error" role="alert">The action stopped after ${acted} of ${state.total} returns (the service was restarted). The others are not acted on yet: the service resumes it once it runs again, and this page then follows it.</div>`
    : '';
  const asked = html`${ACTION_NAME[state.action]}${state.argument ? html` (${state.argument})` : ''} on ${state.total} ${state.total === 1 ? 'return' : 'returns'}, started ${formatDate(state.createdAt)}.`;
  const response = view(req, 200, 'Bulk action', html`${stalled}<div class="notice" role="status" id="bulk-summary">${bulkSummary(state)}</div><p>${asked}</p>${refusals}${back}`);
  return state.state === 'STALLED' ? { ...response, headers: { ...response.headers, refresh: String(REFRESH_SECONDS) } } : response;
}
