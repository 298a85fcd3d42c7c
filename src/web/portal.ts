// Shopper returns portal: order name + e-mail (or a signed link) -> the order's
// returnable lines -> a return created with the same returnCreate mutation as every
// door -> the order's return statuses. An unknown order and a wrong e-mail get the
// same answer.
import { signPortalToken, verifyPortalToken } from '../auth/shopper.ts';
import type { DoorResponse } from '../door.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { runOperation } from '../schema/execute.ts';
import { html, formatDate, type Html } from './html.ts';
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

export function lookupPage(req: PortalRequest, status = 200, error?: string): DoorResponse {
  return view(
    req,
    status,
    'Start a return',
    html`${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<form method="post" action="${base(req)}/lookup" class="card"><input type="hidden" name="csrf" value="${req.csrfToken}">
<label for="order-name">Order number</label><input type="text" id="order-name" name="order" required maxlength="100" placeholder="#1001">
<label for="order-email">E-mail address</label><input type="email" id="order-email" name="email" required maxlength="254">
<button type="submit">Find my order</button></form>`,
  );
}

async function lookup(req: PortalRequest): Promise<DoorResponse> {
  const name = (req.form.get('order') ?? '').trim();
  const email = (req.form.get('email') ?? '').trim();
  const normalized = name && !name.startsWith('#') ? `#${name}` : name;
  if (!name || !email) return lookupPage(req, 400, 'Enter your order number and e-mail address.');
  const outcome = await runOperation<{ shopperOrder: { id: string } | null }>(ops.portalFindOrder, { name: normalized, email }, req.ctx);
  const order = outcome.ok ? outcome.data.shopperOrder : null;
  if (!order) return lookupPage(req, 404, NOT_FOUND_MESSAGE);
  return redirect(orderLink(req.storeId, order.id));
}

export function orderLink(storeId: string, orderId: string): string {
  return `/portal/${encodeURIComponent(storeId)}/orders/${encodeURIComponent(orderId)}?token=${encodeURIComponent(signPortalToken(storeId, orderId))}`;
}

interface PortalOrder {
  id: string;
  name: string;
  lineItems: { id: string; title: string; sku: string | null; quantity: number; returnableQuantity: number }[];
}

interface PortalReturn {
  id: string;
  status: string;
  createdAt: string;
  items: { quantity: number; reason: string | null; title: string }[];
}

const STATUS_WORDS: Record<string, string> = {
  open: 'Received, waiting for your parcel',
  in_transit: 'On its way to us',
  delivered: 'Arrived, being checked',
  needs_review: 'Being reviewed',
  in_review: 'Being reviewed',
  flagged: 'Being reviewed',
  complete: 'Done: refund issued',
  rejected: 'Closed',
  deleted: 'Closed',
};

async function orderPage(req: PortalRequest, orderId: string, token: string, status = 200, error?: string): Promise<DoorResponse> {
  const found = await runOperation<{ order: PortalOrder | null }>(ops.portalOrder, { id: orderId }, req.ctx);
  if (!found.ok || !found.data.order) return lookupPage(req, 404, NOT_FOUND_MESSAGE);
  const order = found.data.order;
  const returns = await runOperation<{ returns: { nodes: PortalReturn[] } }>(ops.portalReturns, { orderName: order.name }, req.ctx);
  const list = returns.ok ? returns.data.returns.nodes : [];
  const returnable = order.lineItems.filter((l) => l.returnableQuantity > 0);
  const rows = returnable.map(
    (l, i) => html`<fieldset class="card"><legend>${l.title}${l.sku ? html` (${l.sku})` : ''}</legend>
<input type="hidden" name="line" value="${l.id}">
<label for="qty-${i}">Quantity to return (up to ${l.returnableQuantity})</label><input type="number" id="qty-${i}" name="quantity" min="0" max="${l.returnableQuantity}" value="0">
<label for="reason-${i}">Reason</label><select id="reason-${i}" name="reason">${REASONS.map((r) => html`<option value="${r}">${r.replace(/_/g, ' ')}</option>`)}</select>
<label for="outcome-${i}">Compensation</label><select id="outcome-${i}" name="outcome"><option value="REFUND">Refund</option><option value="CREDIT">Store credit</option></select></fieldset>`,
  );
  return view(
    req,
    status,
    `Order ${order.name}`,
    html`${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<h2>Your returns</h2>
${list.length === 0 ? html`<p>No returns yet.</p>` : html`<ul id="return-statuses">${list.map((r) => html`<li data-status="${r.status}"><strong>${STATUS_WORDS[r.status.toLowerCase()] ?? r.status}</strong> — started ${formatDate(r.createdAt)}: ${r.items.map((i) => `${i.quantity} × ${i.title}`).join(', ')}</li>`)}</ul>`}
<h2>Return items</h2>
${returnable.length === 0 ? html`<p>Nothing on this order can be returned any more.</p>` : html`<form method="post" action="${base(req)}/orders/${order.id}/returns"><input type="hidden" name="csrf" value="${req.csrfToken}"><input type="hidden" name="token" value="${token}">${rows}<button type="submit">Start return</button></form>`}`,
  );
}

async function createReturn(req: PortalRequest, orderId: string, token: string): Promise<DoorResponse> {
  const lines = req.form.getAll('line');
  const quantities = req.form.getAll('quantity');
  const reasons = req.form.getAll('reason');
  const outcomes = req.form.getAll('outcome');
  const items = lines
    .map((lineItemId, i) => ({
      lineItemId,
      quantity: Number(quantities[i] ?? 0),
      reason: REASONS.includes(reasons[i]) ? reasons[i] : 'other',
      outcome: outcomes[i] === 'CREDIT' ? 'CREDIT' : 'REFUND',
    }))
    .filter((item) => Number.isInteger(item.quantity) && item.quantity > 0);
  if (items.length === 0) return orderPage(req, orderId, token, 400, 'Choose at least one item to return.');
  const outcome = await runOperation(ops.portalCreateReturn, { input: { orderId, items } }, req.ctx);
  if (!outcome.ok) return orderPage(req, orderId, token, outcome.error.code === 'CONFLICT' ? 409 : 400, outcome.error.message);
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
    if (!verifyPortalToken(req.storeId, orderId, token)) return lookupPage(req, 404, NOT_FOUND_MESSAGE);
    if (!action && get) return orderPage(req, orderId, token);
    if (action === 'returns' && req.segments.length === 3 && req.method === 'POST') return createReturn(req, orderId, token);
  }
  return lookupPage(req, 404, 'There is no such page.');
}
