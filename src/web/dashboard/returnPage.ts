// A return's page: what it holds, its actions, tags, notes and history.
import type { DoorResponse } from '../../door.ts';
import { runOperation, type Operation } from '../../schema/execute.ts';
import { csrfField, formatDate, html, money, type Html } from '../html.ts';
import { redirect } from '../http.ts';
import { objectHistory } from './history.ts';
import { ops } from '../operations.ts';
import { notFound, run, view, type DashboardRequest } from './kit.ts';
import type { ReturnRow } from './returns.ts';

export interface ReturnDetail extends ReturnRow {
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

export async function returnPage(req: DashboardRequest, id: string, message?: { error?: string; done?: string }): Promise<DoorResponse> {
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
<div class="table" role="region" aria-label="Items" tabindex="0"><table><thead><tr><th>Item</th><th>SKU</th><th>Qty</th><th>Reason</th><th>Outcome</th><th>Amount</th><th></th></tr></thead><tbody>${items}</tbody></table></div>
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

export async function returnAction(req: DashboardRequest, id: string, name: string): Promise<DoorResponse> {
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
