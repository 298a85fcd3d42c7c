// The returns queue: every return of the store, searched, filtered by status, updated live.
import type { DoorResponse } from '../../door.ts';
import { formatDate, html, money, type Html } from '../html.ts';
import { LIVE_RETURNS_SCRIPT_PATH, RETURN_EVENTS_PATH } from '../liveReturns.ts';
import { ops } from '../operations.ts';
import { searchListView, searchPage, searchTerm, type DashboardRequest } from './kit.ts';


const RETURN_STATUSES = ['OPEN', 'IN_TRANSIT', 'DELIVERED', 'NEEDS_REVIEW', 'IN_REVIEW', 'FLAGGED', 'COMPLETE', 'REJECTED', 'DELETED'];

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

export async function returnsPage(req: DashboardRequest): Promise<DoorResponse> {
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
    columns: RETURN_COLUMNS,
    cells: returnCells,
    rowAttributes: returnRowAttributes,
    // The script refreshes the list from the event stream (liveReturns.ts); without it the page is a plain list.
    region: (list) => html`<div id="returns-list" aria-live="polite" data-live-events="${RETURN_EVENTS_PATH}">${list}</div>`,
    script: LIVE_RETURNS_SCRIPT_PATH,
  });
}
