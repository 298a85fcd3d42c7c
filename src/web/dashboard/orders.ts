// Orders and an order's page.
import type { DoorResponse } from '../../http/door.ts';
import { formatDate, html, money, type Html } from '../html.ts';
import { objectHistory } from './history.ts';
import { ops } from '../operations.ts';
import { notFound, run, searchListView, searchPage, searchTerm, view, type DashboardRequest } from './kit.ts';


export interface OrderRow {
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

interface OrderListRow extends OrderRow {
  unitsOrdered: number;
  fulfillmentState: 'UNFULFILLED' | 'PARTIALLY_FULFILLED' | 'FULFILLED' | 'DELIVERED';
}

const FULFILMENT_WORDS: Record<OrderListRow['fulfillmentState'], string> = {
  UNFULFILLED: 'Unfulfilled',
  PARTIALLY_FULFILLED: 'Partly sent',
  FULFILLED: 'Sent',
  DELIVERED: 'Delivered',
};

export async function ordersPage(req: DashboardRequest): Promise<DoorResponse> {
  // Links from before the search box name an order exactly (name=): the same as a name: term.
  const name = req.query.get('name') || '';
  const q = [req.query.get('q') ?? '', name ? searchTerm('name', name) : ''].filter(Boolean).join(' ');
  const result = await searchPage<OrderListRow>(req, 'orders', ops.orders, { q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Orders',
    path: '/admin/orders',
    exportPath: '/admin/exports/orders',
    what: 'orders',
    q,
    hint: "Words match the order name, the merchant's order id, the shopper's e-mail, name and phone, tags, SKUs and titles.",
    fields: ['name:1001', 'order_id:', 'email:', 'customer:', 'phone:', 'sku:', 'title:', 'tag:', 'created_at:>=2026-11-01', 'total:>100'],
    columns: ['Order', 'Customer', 'Items', 'Total', 'Fulfilment', 'Placed'],
    cells: (o) => [
      html`<a href="/admin/orders/${o.id}">${o.name}</a>`,
      html`${shopperName(o.submittedCustomer) || o.submittedCustomer?.email || '—'}`,
      html`${o.unitsOrdered}`,
      html`${money(o.totalPrice)}`,
      html`${FULFILMENT_WORDS[o.fulfillmentState]}`,
      html`${formatDate(o.placedAt)}`,
    ],
  });
}

export interface OrderDetail {
  id: string;
  name: string;
  externalId: string;
  placedAt: string;
  customerPortalToken: string;
  customer: { id: string } | null;
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

/** The shopper as the order names them, linked to the store's customer when the order has one. */
function customerLink(order: OrderDetail): Html {
  const who = [order.submittedCustomer?.name, order.submittedCustomer?.email].filter(Boolean).join(' ');
  return order.customer ? html`<a href="/admin/customers/${order.customer.id}" id="order-customer">${who || 'customer'}</a>` : html`${who || 'none'}`;
}

export async function orderPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
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
<p><strong>Customer</strong> ${customerLink(order)}</p>
<p><strong>Total</strong> ${money(order.totalPrice)}</p>
<p><a href="/admin/returns?${new URLSearchParams({ q: searchTerm('name', order.name) }).toString()}">Returns of this order</a> · <a href="${portalLink}">Shopper portal link</a></p></section>
<h2>Line items</h2>
<div class="table" role="region" aria-label="Line items" tabindex="0"><table><thead><tr><th>Item</th><th>SKU</th><th>Ordered</th><th>Returnable</th><th>Price</th></tr></thead><tbody>${lines}</tbody></table></div>
<h2>Fulfillments</h2>
${fulfillmentsSection(order)}
${await objectHistory(req, `/admin/orders/${encodeURIComponent(order.id)}`, 'ORDER', order.id)}`,
  );
}
