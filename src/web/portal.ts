// Shopper returns portal: order name + e-mail (or a signed link) -> the order's
// returnable lines -> a return created with the same returnCreate mutation as every
// door -> the order's return statuses. An unknown order and a wrong e-mail get the
// same answer.
import type { PortalLinks } from '../auth/shopper.ts';
import type { DoorResponse } from '../http/door.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { runOperation } from '../schema/execute.ts';
import { html, formatDate, money, type Html } from './html.ts';
import { page, redirect } from './http.ts';
import { ops } from './operations.ts';

export interface PortalRequest {
  ctx: GraphQLContext;
  storeId: string;
  storeName: string;
  method: string;
  segments: string[];
  query: URLSearchParams;
  form: URLSearchParams;
  /** Double-submit token for this browser's forms. */
  csrfToken: string;
}

const REASONS = ['too_small', 'too_large', 'damaged', 'not_as_described', 'changed_mind', 'other'];
const NOT_FOUND_MESSAGE = 'We could not find an order with that order number and e-mail address.';

function base(req: PortalRequest): string {
  return `/portal/${encodeURIComponent(req.storeId)}`;
}

function view(req: PortalRequest, status: number, title: string, body: Html): DoorResponse {
  return page(status, { title: `${req.storeName} — ${title}`, body });
}

/** The look-up form; after a refused look-up it keeps what was typed (an order number and an e-mail address, nothing secret). */
export function lookupPage(req: PortalRequest, status = 200, error?: string, typed?: { order: string; email: string }): DoorResponse {
  return view(
    req,
    status,
    'Start a return',
    html`${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<form method="post" action="${base(req)}/lookup" class="card"><input type="hidden" name="csrf" value="${req.csrfToken}">
<label for="order-name">Order number</label><input type="text" id="order-name" name="order" required maxlength="100" placeholder="#1001" value="${typed?.order ?? ''}">
<label for="order-email">E-mail address</label><input type="email" id="order-email" name="email" required maxlength="254" autocomplete="email" value="${typed?.email ?? ''}">
<button type="submit">Find my order</button></form>`,
  );
}

async function lookup(req: PortalRequest): Promise<DoorResponse> {
  const typed = { order: (req.form.get('order') ?? '').slice(0, 100), email: (req.form.get('email') ?? '').slice(0, 254) };
  const name = typed.order.trim();
  const email = typed.email.trim();
  const normalized = name && !name.startsWith('#') ? `#${name}` : name;
  if (!name || !email) return lookupPage(req, 400, 'Enter your order number and e-mail address.', typed);
  const outcome = await runOperation<{ shopperOrder: { id: string } | null }>(ops.portalFindOrder, { name: normalized, email }, req.ctx);
  const order = outcome.ok ? outcome.data.shopperOrder : null;
  if (!order) return lookupPage(req, 404, NOT_FOUND_MESSAGE, typed);
  return redirect(orderLink(req.ctx.services.portalLinks, req.storeId, order.id));
}

export function orderLink(links: PortalLinks, storeId: string, orderId: string): string {
  return `/portal/${encodeURIComponent(storeId)}/orders/${encodeURIComponent(orderId)}?token=${encodeURIComponent(links.sign(storeId, orderId))}`;
}

interface PortalOrder {
  id: string;
  name: string;
  lineItems: { id: string; title: string; sku: string | null; quantity: number; returnableQuantity: number }[];
}

type Money = { amount: string; currency: string };

interface PortalReturn {
  id: string;
  status: string;
  createdAt: string;
  totalRefund: Money;
  totalStoreCredit: Money;
  items: { quantity: number; reason: string | null; title: string }[];
}

const STATUS_WORDS: Record<string, string> = {
  open: 'Received, waiting for your parcel',
  in_transit: 'On its way to us',
  delivered: 'Arrived, being checked',
  needs_review: 'Being reviewed',
  in_review: 'Being reviewed',
  flagged: 'Being reviewed',
  rejected: 'Closed',
  deleted: 'Closed',
};

/** What a finished return gave the shopper: a refund, store credit, both, or (an exchange, an item kept) neither. */
function completedWords(ret: PortalReturn): string {
  const given = [
    ...(Number(ret.totalRefund.amount) > 0 ? [`refund of ${money(ret.totalRefund)} issued`] : []),
    ...(Number(ret.totalStoreCredit.amount) > 0 ? [`store credit of ${money(ret.totalStoreCredit)} issued`] : []),
  ];
  return given.length > 0 ? `Done: ${given.join(' and ')}` : 'Done';
}

function statusWords(ret: PortalReturn): string {
  const status = ret.status.toLowerCase();
  return status === 'complete' ? completedWords(ret) : (STATUS_WORDS[status] ?? ret.status);
}

/** The order's page; after a refused return `typed` is the form as it was sent, shown again. */
async function orderPage(req: PortalRequest, orderId: string, token: string, status = 200, error?: string, typed?: URLSearchParams): Promise<DoorResponse> {
  const found = await runOperation<{ order: PortalOrder | null }>(ops.portalOrder, { id: orderId }, req.ctx);
  if (!found.ok || !found.data.order) return lookupPage(req, 404, NOT_FOUND_MESSAGE);
  const order = found.data.order;
  const returns = await runOperation<{ returns: { nodes: PortalReturn[] } }>(ops.portalReturns, { orderName: order.name }, req.ctx);
  const list = returns.ok ? returns.data.returns.nodes : [];
  const returnable = order.lineItems.filter((l) => l.returnableQuantity > 0);
  const sent = typed ? typedLines(typed) : new Map<string, TypedLine>();
  const rows = returnable.map((l, i) => {
    const line = sent.get(l.id);
    return html`<fieldset class="card"><legend>${l.title}${l.sku ? html` (${l.sku})` : ''}</legend>
<input type="hidden" name="line" value="${l.id}">
<label for="qty-${i}">Quantity to return (up to ${l.returnableQuantity})</label><input type="number" id="qty-${i}" name="quantity" min="0" max="${l.returnableQuantity}" value="${line?.quantity ?? '0'}">
<label for="reason-${i}">Reason (needed for an item you return)</label><select id="reason-${i}" name="reason"><option value=""${line?.reason ? '' : html` selected`}>Choose a reason</option>${REASONS.map((r) => html`<option value="${r}"${line?.reason === r ? html` selected` : ''}>${r.replace(/_/g, ' ')}</option>`)}</select>
<label for="outcome-${i}">Compensation</label><select id="outcome-${i}" name="outcome"><option value="REFUND">Refund</option><option value="CREDIT"${line?.outcome === 'CREDIT' ? html` selected` : ''}>Store credit</option></select></fieldset>`;
  });
  return view(
    req,
    status,
    `Order ${order.name}`,
    html`${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<h2>Your returns</h2>
${list.length === 0 ? html`<p>No returns yet.</p>` : html`<ul id="return-statuses">${list.map((r) => html`<li data-status="${r.status}"><strong>${statusWords(r)}</strong> — started ${formatDate(r.createdAt)}: ${r.items.map((i) => `${i.quantity} × ${i.title}`).join(', ')}</li>`)}</ul>`}
<h2>Return items</h2>
${returnable.length === 0 ? html`<p>Nothing on this order can be returned any more.</p>` : html`<form method="post" action="${base(req)}/orders/${order.id}/returns"><input type="hidden" name="csrf" value="${req.csrfToken}"><input type="hidden" name="token" value="${token}">${rows}<button type="submit">Start return</button></form>`}`,
  );
}

interface TypedLine {
  quantity: string;
  reason: string;
  outcome: string;
}

/** The return form as sent, by order line: the form repeats its fields once per line, in order. */
function typedLines(form: URLSearchParams): Map<string, TypedLine> {
  const quantities = form.getAll('quantity');
  const reasons = form.getAll('reason');
  const outcomes = form.getAll('outcome');
  return new Map(form.getAll('line').map((line, i) => [line, { quantity: quantities[i] ?? '0', reason: reasons[i] ?? '', outcome: outcomes[i] ?? '' }]));
}

async function createReturn(req: PortalRequest, orderId: string, token: string): Promise<DoorResponse> {
  const items = [...typedLines(req.form)]
    .map(([lineItemId, line]) => ({
      lineItemId,
      quantity: Number(line.quantity),
      reason: REASONS.includes(line.reason) ? line.reason : '',
      outcome: line.outcome === 'CREDIT' ? 'CREDIT' : 'REFUND',
    }))
    .filter((item) => Number.isInteger(item.quantity) && item.quantity > 0);
  const again = (status: number, message: string) => orderPage(req, orderId, token, status, message, req.form);
  if (items.length === 0) return again(400, 'Choose at least one item to return.');
  if (items.some((item) => !item.reason)) return again(400, 'Choose a reason for each item you return.');
  const outcome = await runOperation(ops.portalCreateReturn, { input: { orderId, items } }, req.ctx);
  if (!outcome.ok) return again(outcome.error.code === 'CONFLICT' ? 409 : 400, outcome.error.message);
  return redirect(`${base(req)}/orders/${encodeURIComponent(orderId)}?token=${encodeURIComponent(token)}`);
}

/** Portal pages; `segments` is the path below /portal/{storeId}. */
export async function portal(req: PortalRequest): Promise<DoorResponse> {
  const [section, orderId, action] = req.segments;
  const get = req.method === 'GET' || req.method === 'HEAD';
  if (!section && get) return lookupPage(req);
  if (section === 'lookup' && !orderId && req.method === 'POST') return lookup(req);
  if (section === 'orders' && orderId) {
    const token = (req.method === 'POST' ? req.form.get('token') : req.query.get('token')) ?? '';
    if (!req.ctx.services.portalLinks.verify(req.storeId, orderId, token)) return lookupPage(req, 404, NOT_FOUND_MESSAGE);
    if (!action && get) return orderPage(req, orderId, token);
    if (action === 'returns' && req.segments.length === 3 && req.method === 'POST') return createReturn(req, orderId, token);
  }
  return lookupPage(req, 404, 'There is no such page.');
}
