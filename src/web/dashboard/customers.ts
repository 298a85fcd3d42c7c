// Customers, a customer's page, and a shopper's requests about their data (export, erasure).
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html, money, type Html } from '../html.ts';
import { SECURITY_HEADERS } from '../http.ts';
import { customerDataExportAnswer } from '../../exports/customerDataExport.ts';
import { RETURN_COLUMNS, returnCells, returnRowAttributes, type ReturnRow } from './returns.ts';
import type { OrderRow } from './orders.ts';
import { erasureSummary, type ErasureCountRows } from './privacy.ts';
import { objectHistory } from './history.ts';
import { ops } from '../operations.ts';
import { afterAction, failureOf, notFound, run, searchListView, searchPage, searchTerm, view, type Connection, type DashboardRequest, cellsOf, dataTable } from './kit.ts';


interface CustomerRow {
  id: string;
  email: string | null;
  name: string | null;
  phoneNumber: string | null;
  updatedAt: string;
}

interface CustomerListRow extends CustomerRow {
  ordersCount: number;
  lifetimeSpend: { amount: string; currency: string }[];
  lastOrderAt: string | null;
}

export async function customersPage(req: DashboardRequest): Promise<DoorResponse> {
  const q = req.query.get('q') ?? '';
  const result = await searchPage<CustomerListRow>(req, 'customers', ops.customers, { q: q || undefined, after: req.query.get('after') || undefined });
  return searchListView(req, result, {
    title: 'Customers',
    path: '/admin/customers',
    exportPath: '/admin/exports/customers',
    what: 'customers',
    q,
    hint: 'Words match the e-mail, names, phone numbers (written any way) and custom field values.',
    fields: ['email:', 'name:', 'first_name:', 'last_name:', 'phone:', 'created_at:>=2026-11-01', 'updated_at:'],
    columns: ['E-mail', 'Name', 'Phone', 'Orders', 'Lifetime spend', 'Last order'],
    cells: (c) => [
      html`<a href="/admin/customers/${c.id}">${c.email ?? 'no e-mail'}</a>`,
      html`${c.name ?? ''}`,
      html`${c.phoneNumber ?? ''}`,
      html`${c.ordersCount}`,
      html`${c.lifetimeSpend.map(money).join(', ') || '—'}`,
      html`${c.lastOrderAt ? formatDate(c.lastOrderAt) : '—'}`,
    ],
  });
}

export interface CustomerDetail extends CustomerListRow {
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

export function customFieldValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Orders, spend and the last order, as the schema counts them for the customer (every order, not only those listed). */
function orderSummary(customer: CustomerDetail, newest: OrderRow | undefined): Html {
  if (customer.ordersCount === 0) return html`<p id="customer-summary"><strong>Orders</strong> 0</p>`;
  const spent = customer.lifetimeSpend.map((total) => money(total)).join(' + ') || 'none';
  const last = customer.lastOrderAt ? html` · <strong>Last order</strong> ${newest ? html`<a href="/admin/orders/${newest.id}">${newest.name}</a> ` : ''}${formatDate(customer.lastOrderAt)}` : '';
  return html`<p id="customer-summary"><strong>Orders</strong> ${customer.ordersCount} · <strong>Lifetime spend</strong> ${spent}${last}</p>`;
}

export async function customerPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
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
    200,
    customer.name || customer.email || customer.phoneNumber || 'Customer',
    html`<section class="card"><p><strong>E-mail</strong> ${customer.email ?? 'none'}</p>
<p><strong>Name</strong> ${[customer.firstName, customer.lastName].filter(Boolean).join(' ') || 'none'}</p>
<p><strong>Phone</strong> ${customer.phoneNumbers.join(', ') || 'none'}</p>
${place ? html`<p><strong>Location</strong> ${place}</p>` : ''}
<p><strong>Created</strong> ${formatDate(customer.createdAt)} · <strong>Updated</strong> ${formatDate(customer.updatedAt)}</p>
${orderSummary(customer, orders[0])}</section>
<h2>Custom fields</h2>
${fields.length > 0
  ? html`<div class="table" role="region" aria-label="Custom fields" tabindex="0"><table id="custom-fields"><thead><tr><th>Field</th><th>Value</th></tr></thead><tbody>${fields.map(([name, value]) => html`<tr><td>${name}</td><td>${customFieldValue(value)}</td></tr>`)}</tbody></table></div>`
  : html`<p>No custom fields.</p>`}
<h2>Subscriptions</h2>
${customer.subscriptions.length > 0
  ? html`<div class="table" role="region" aria-label="Subscriptions" tabindex="0"><table><thead><tr><th>Channel</th><th>Kind</th><th>Status</th><th>Address</th><th>Changed</th></tr></thead><tbody>${customer.subscriptions.map((c) => html`<tr><td>${c.channel}</td><td>${c.kind}</td><td>${c.status}</td><td>${c.address}</td><td>${formatDate(c.changedAt)}</td></tr>`)}</tbody></table></div>`
  : html`<p>No consent recorded.</p>`}
<h2>Orders</h2>
${orders.length > 0
  ? html`<div class="table" role="region" aria-label="Orders of this customer" tabindex="0"><table id="customer-orders"><thead><tr><th>Order</th><th>Placed</th><th>Total</th></tr></thead><tbody>${orders.map((o) => html`<tr><td><a href="/admin/orders/${o.id}">${o.name}</a></td><td>${formatDate(o.placedAt)}</td><td>${money(o.totalPrice)}</td></tr>`)}</tbody></table></div>`
  : html`<p>No orders.</p>`}
${more('orders', activity.orders)}
<h2>Returns</h2>
${returns.length > 0
  ? dataTable('Returns of this customer', RETURN_COLUMNS, returns.map((r) => html`<tr${returnRowAttributes(r)}>${cellsOf(RETURN_COLUMNS, returnCells(r))}</tr>`), html` id="customer-returns"`)
  : html`<p>No returns.</p>`}
${more('returns', activity.returns)}
${privacySection(req, customer)}
${await objectHistory(req, `/admin/customers/${encodeURIComponent(customer.id)}`, 'CUSTOMER', customer.id)}`,
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

export async function exportCustomer(req: DashboardRequest, id: string): Promise<DoorResponse> {
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

export async function eraseCustomerData(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const page = `/admin/customers/${encodeURIComponent(id)}`;
  if (req.form.get('confirm') !== 'yes') return afterAction(req, page, { error: 'Nothing was erased: tick the box to confirm, erasure cannot be undone.' });
  const outcome = await runOperation<{ customerErase: { total: number; counts: ErasureCountRows } }>(ops.customerErase, { id }, req.ctx);
  if (!outcome.ok) {
    if (outcome.error.code === 'BAD_USER_INPUT' || outcome.error.code === 'NOT_FOUND') return notFound(req);
    if (outcome.error.code === 'FORBIDDEN') throw failureOf(outcome.error);
    return afterAction(req, page, { error: `Nothing was erased: ${failureOf(outcome.error).message}` });
  }
  return afterAction(req, page, { done: erasureSummary(outcome.data.customerErase.total, outcome.data.customerErase.counts) });
}
