// A return's page: what it holds, the actions its status allows, tags, notes and history;
// and the page that shows what processing it would record before it is confirmed.
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html, money, type Html } from '../html.ts';
import { objectHistory } from './history.ts';
import { ops } from '../operations.ts';
import { afterAction, cellsOf, dataTable, failureOf, notFound, run, view, type DashboardRequest } from './kit.ts';
import type { ReturnRow } from './returns.ts';

type Money = { amount: string; currency: string };

/** An operation of the return's state machine, as Return.allowedActions names it. */
type ReturnAction = 'PROCESS' | 'FLAG' | 'REJECT' | 'RESET' | 'DELETE' | 'REMOVE_ITEMS' | 'NOTE';

export interface ReturnDetail extends ReturnRow {
  tags: string[];
  allowedActions: ReturnAction[];
  totalRefund: Money;
  totalStoreCredit: Money;
  order: { id: string; name: string; customer: { id: string } | null; submittedCustomer: { name: string | null; email: string | null } | null } | null;
  externalReferenceId: string | null;
  customerEmail: string | null;
  items: { id: string; quantity: number; reason: string | null; outcome: string; removedAt: string | null; title: string; sku: string | null; amount: Money | null }[];
  statusChanges: { operation: string; fromStatus: string | null; toStatus: string; createdAt: string }[];
  notes: { id: string; content: string; createdAt: string }[];
}

const pathOf = (id: string) => `/admin/returns/${encodeURIComponent(id)}`;
const isZero = (value: Money) => Number(value.amount) === 0;
const OUTCOME_WORDS: Record<string, string> = { REFUND: 'Refund', CREDIT: 'Store credit', EXCHANGE: 'Exchange', KEEP: 'Keep' };

function tagsForm(req: DashboardRequest, ret: ReturnDetail, defined: string[]): Html {
  const boxes = defined.map(
    (name) => html`<label class="check"><input type="checkbox" name="tags" value="${name}"${ret.tags.includes(name) ? html` checked` : ''}> ${name}</label>`,
  );
  return html`<form method="post" action="/admin/returns/${ret.id}/tags" class="card">${csrfField(req.session.csrfToken)}
<fieldset><legend>Tags</legend>${boxes.length > 0 ? boxes : html`<p>The store has no tags yet.</p>`}</fieldset>
<label for="new-tag">New tag (defined for the store and added)</label><input type="text" id="new-tag" name="newTag" maxlength="100">
<button type="submit">Save tags</button></form>`;
}

/** What a reset undoes, in words, before the merchant confirms it. */
function resetConsequences(ret: ReturnDetail): Html {
  const removed = ret.items.filter((i) => i.removedAt);
  const undone = [
    ...(isZero(ret.totalRefund) ? [] : [html`<li>the refund of <strong>${money(ret.totalRefund)}</strong> recorded is set back to 0 (money already paid out is not reversed)</li>`]),
    ...(isZero(ret.totalStoreCredit) ? [] : [html`<li>the store credit of <strong>${money(ret.totalStoreCredit)}</strong> recorded is set back to 0</li>`]),
    ...(removed.length > 0 ? [html`<li>${removed.length === 1 ? 'the removed item' : `the ${removed.length} removed items`} (${removed.map((i) => i.title).join(', ')}) ${removed.length === 1 ? 'goes' : 'go'} back on the return</li>`] : []),
  ];
  return html`<p>Reset sets return #${ret.number} back to open${ret.status === 'OPEN' ? '' : html` from ${ret.status.toLowerCase()}`}.</p>
${undone.length > 0 ? html`<ul id="reset-undoes">${undone}</ul>` : html`<p>It records nothing else: nothing was refunded or removed.</p>`}
<p>Processing it again would record its refunds again.</p>`;
}

/** The forms of the operations the return's status allows; processing goes through its preview. */
function actionsSection(req: DashboardRequest, ret: ReturnDetail): Html {
  const csrf = csrfField(req.session.csrfToken);
  const allowed = new Set(ret.allowedActions);
  const button = (name: string, label: string) =>
    html`<form method="post" action="/admin/returns/${ret.id}/${name}">${csrf}<button type="submit" class="secondary">${label}</button></form>`;
  const buttons = [
    ...(allowed.has('PROCESS') ? [html`<p><a href="/admin/returns/${ret.id}/process" id="process-link">Process: review the refund and confirm</a></p>`] : []),
    ...(allowed.has('FLAG') ? [button('flag', 'Flag for review')] : []),
    ...(allowed.has('REJECT') ? [button('close', 'Close (reject)')] : []),
  ];
  const reset = allowed.has('RESET')
    ? html`<form method="post" action="/admin/returns/${ret.id}/reset" class="card" id="reset-form">${csrf}<h3>Reset</h3>${resetConsequences(ret)}
<label class="check"><input type="checkbox" name="confirm" value="yes" required id="reset-confirm"> I understand what the reset undoes</label>
<div><button type="submit" class="secondary">Reset return #${ret.number}</button></div></form>`
    : '';
  if (buttons.length === 0 && !reset) return html`<p id="no-actions">A ${ret.status.toLowerCase()} return takes no further action.</p>`;
  return html`${buttons.length > 0 ? html`<div class="actions">${buttons}</div>` : ''}${reset}`;
}

function customerLine(ret: ReturnDetail): Html {
  if (!ret.order) return html`<p><strong>Imported</strong> ${ret.externalReferenceId ?? ''} · ${ret.customerEmail ?? ''}</p>`;
  const who = [ret.order.submittedCustomer?.name, ret.order.submittedCustomer?.email].filter(Boolean).join(' ');
  return html`<p><strong>Order</strong> <a href="/admin/orders/${ret.order.id}">${ret.order.name}</a> · <strong>Customer</strong> ${ret.order.customer ? html`<a href="/admin/customers/${ret.order.customer.id}" id="return-customer">${who || 'customer'}</a>` : who || 'none'}</p>`;
}

export async function returnPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const { return: ret, returnTags } = await run<{ return: ReturnDetail | null; returnTags: { name: string }[] }>(req, ops.returnDetail, { id });
  if (!ret) return notFound(req);
  const csrf = csrfField(req.session.csrfToken);
  const allowed = new Set(ret.allowedActions);
  const live = ret.items.filter((i) => !i.removedAt);
  const itemColumns = ['Item', 'SKU', 'Qty', 'Reason', 'Outcome', 'Amount', 'On the return'];
  const items = ret.items.map(
    (i) => html`<tr>${cellsOf(itemColumns, [html`${i.title}`, html`${i.sku ?? ''}`, html`${i.quantity}`, html`${i.reason ?? ''}`, html`${OUTCOME_WORDS[i.outcome] ?? i.outcome}`, html`${money(i.amount)}`, html`${i.removedAt ? 'removed' : 'yes'}`])}</tr>`,
  );
  return view(
    req,
    200,
    `Return #${ret.number}`,
    html`<section class="card"><p><strong>Status</strong> <span id="return-status">${ret.status}</span> · <strong>Type</strong> ${ret.type}</p>
${customerLine(ret)}
<p><strong>Total</strong> ${money(ret.total)} · <strong>Refunded</strong> <span id="return-refunded">${money(ret.totalRefund)}</span> · <strong>Store credit</strong> <span id="return-credited">${money(ret.totalStoreCredit)}</span></p>
<p><strong>Tags</strong> ${ret.tags.join(', ') || 'none'}</p></section>
<h2>Actions</h2>
${actionsSection(req, ret)}
<h2>Items</h2>
${dataTable('Items', itemColumns, items)}
${allowed.has('REMOVE_ITEMS') && live.length > 1 ? html`<form method="post" action="/admin/returns/${ret.id}/remove" class="card">${csrf}<fieldset><legend>Remove items</legend>${live.map((i) => html`<label class="check"><input type="checkbox" name="items" value="${i.id}"> ${i.title}</label>`)}</fieldset><button type="submit" class="secondary">Remove selected items</button></form>` : ''}
<h2>Tags</h2>
${tagsForm(req, ret, returnTags.map((t) => t.name))}
<h2>State history</h2>
<ol>${ret.statusChanges.map((c) => html`<li>${formatDate(c.createdAt)}: ${c.operation} ${c.fromStatus ?? '—'} → ${c.toStatus}</li>`)}</ol>
<h2>Notes</h2>
<ul>${ret.notes.map((n) => html`<li>${formatDate(n.createdAt)}: ${n.content}</li>`)}</ul>
${allowed.has('NOTE') ? html`<form method="post" action="/admin/returns/${ret.id}/note" class="card">${csrf}<label for="note-content">Add a note</label><textarea id="note-content" name="content" maxlength="255" required></textarea><button type="submit">Add note</button></form>` : ''}
${await objectHistory(req, pathOf(ret.id), 'RETURN', ret.id)}`,
  );
}

// ------------------------------------------------------------------ processing, previewed then confirmed

/** The outcomes an item may be paid as instead of the one asked, as the schema names them (domain SWITCHABLE_OUTCOMES). */
const SWITCHABLE = ['REFUND', 'CREDIT'];
/** A radio group per such item: `outcome-<item id>`. */
const OUTCOME_PARAMETER = 'outcome-';

interface ProcessPreviewData {
  return: {
    id: string;
    number: number;
    status: string;
    items: { id: string; title: string; sku: string | null; quantity: number; outcome: string }[];
    processingPreview: {
      refund: Money;
      storeCredit: Money;
      rejectsReturn: boolean;
      items: { itemId: string; outcome: string; rejected: boolean; amount: Money }[];
    } | null;
  } | null;
}

/** What confirming would record, in one sentence: the button's words and the message after it. */
function processingSummary(preview: { refund: Money; storeCredit: Money; rejectsReturn: boolean }): string {
  if (preview.rejectsReturn) return 'every item rejected: the return is rejected, nothing refunded';
  return `refund ${money(preview.refund)}, store credit ${money(preview.storeCredit)}`;
}

/**
 * GET /admin/returns/:id/process: what processing would record (the domain's own computation,
 * Return.processingPreview), a choice per item of completing or rejecting it, and the form
 * that confirms exactly what was shown.
 */
export async function processPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const rejectIds = req.query.getAll('reject');
  const chosen = outcomeChoices(req.query);
  const outcome = await runOperation<ProcessPreviewData>(ops.returnProcessPreview, { id, reject: rejectIds, outcomes: chosen }, req.ctx);
  if (!outcome.ok) {
    if (outcome.error.code === 'NOT_FOUND') return notFound(req);
    const failure = failureOf(outcome.error);
    return view(req, failure.status, 'Process return', html`<div class="error" role="alert">${failure.message}</div><p><a href="${pathOf(id)}">Back to the return</a></p>`);
  }
  const ret = outcome.data.return;
  if (!ret) return notFound(req);
  const preview = ret.processingPreview;
  if (!preview) {
    return view(req, 422, 'Process return', html`<div class="error" role="alert">return #${ret.number} is ${ret.status.toLowerCase()}: process is not allowed in that status</div><p><a href="${pathOf(id)}">Back to the return</a></p>`);
  }
  const decided = new Map(preview.items.map((row) => [row.itemId, row]));
  const columns = ['Item', 'Qty', 'Outcome', 'Decision', 'Records'];
  const rows = ret.items.map((item) => {
    const row = decided.get(item.id);
    const paid = row?.outcome ?? item.outcome;
    return html`<tr data-item-id="${item.id}">${cellsOf(columns, [
      html`${item.title}${item.sku ? html` <span class="hint">${item.sku}</span>` : ''}`,
      html`${item.quantity}`,
      html`${OUTCOME_WORDS[paid] ?? paid}${paid !== item.outcome ? html` <span class="hint">(asked: ${OUTCOME_WORDS[item.outcome] ?? item.outcome})</span>` : ''}`,
      html`${row?.rejected ? 'Rejected: taken off the return' : 'Completed'}`,
      html`${row ? money(row.amount) : ''}`,
    ])}</tr>`;
  });
  const summary = processingSummary(preview);
  // Refund and store credit both pay an item's amount: the merchant may pay such an item the other way (domain SWITCHABLE_OUTCOMES).
  const switchable = ret.items.filter((item) => SWITCHABLE.includes(item.outcome));
  return view(
    req,
    200,
    `Process return #${ret.number}`,
    html`<p>Processing completes the return and records what the customer gets back. Check the amounts, then confirm.</p>
${dataTable('What processing records', columns, rows)}
<section class="card" id="process-totals">${preview.rejectsReturn
  ? html`<p><strong>Every item is rejected:</strong> confirming rejects return #${ret.number} and records no refund.</p>`
  : html`<p><strong>Refund</strong> ${money(preview.refund)} · <strong>Store credit</strong> ${money(preview.storeCredit)}</p>`}</section>
<form method="get" action="/admin/returns/${ret.id}/process" class="card">${switchable.map((item) => {
  const paid = decided.get(item.id)?.outcome ?? item.outcome;
  return html`<fieldset class="outcome-choice"><legend>Pay ${item.title} as</legend>${SWITCHABLE.map(
    (choice) => html`<label class="check"><input type="radio" name="${OUTCOME_PARAMETER}${item.id}" value="${choice}"${choice === paid ? html` checked` : ''}> ${OUTCOME_WORDS[choice] ?? choice}${choice === item.outcome ? ' (as asked)' : ''}</label>`,
  )}</fieldset>`;
})}<fieldset><legend>Reject items (taken off the return, their units released)</legend>
${ret.items.map((item) => html`<label class="check"><input type="checkbox" name="reject" value="${item.id}"${rejectIds.includes(item.id) ? html` checked` : ''}> ${item.title}</label>`)}</fieldset>
<button type="submit" class="secondary">Update the amounts</button></form>
<form method="post" action="/admin/returns/${ret.id}/process" class="card">${csrfField(req.session.csrfToken)}
${ret.items.map((item) => html`<input type="hidden" name="item" value="${item.id}">`)}${rejectIds.map((itemId) => html`<input type="hidden" name="reject" value="${itemId}">`)}${chosen.map(
  (choice) => html`<input type="hidden" name="${OUTCOME_PARAMETER}${choice.itemId}" value="${choice.outcome}">`,
)}
<p>Confirm processing return #${ret.number}: ${summary}.</p>
<button type="submit" id="process-confirm">Confirm: ${summary}</button> <a href="${pathOf(ret.id)}">Cancel</a></form>`,
  );
}

interface ProcessedReturn {
  number: number;
  status: string;
  totalRefund: Money;
  totalStoreCredit: Money;
}

/** How each item is to be paid, from the radio groups (`outcome-<item id>`): the preview's and the confirmation's. */
function outcomeChoices(parameters: URLSearchParams): { itemId: string; outcome: string }[] {
  return [...parameters]
    .filter(([name]) => name.startsWith(OUTCOME_PARAMETER))
    .map(([name, value]) => ({ itemId: name.slice(OUTCOME_PARAMETER.length), outcome: value.toUpperCase() }));
}

/** Processes as the preview showed it: every item named, those ticked rejected, each paid as chosen. */
async function confirmProcessing(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const rejected = new Set(req.form.getAll('reject'));
  const chosen = new Map(outcomeChoices(req.form).map((choice) => [choice.itemId, choice.outcome]));
  const outcome =
    rejected.size === 0 && chosen.size === 0
      ? await runOperation<{ returnProcess: ProcessedReturn }>(ops.returnProcess, { id }, req.ctx)
      : await runOperation<{ returnItemsProcess: ProcessedReturn }>(
          ops.returnItemsProcess,
          { id, items: req.form.getAll('item').map((itemId) => ({ itemId, reject: rejected.has(itemId), ...(chosen.has(itemId) && !rejected.has(itemId) ? { outcome: chosen.get(itemId) } : {}) })) },
          req.ctx,
        );
  if (!outcome.ok) return refused(req, id, outcome.error);
  const done = 'returnProcess' in outcome.data ? outcome.data.returnProcess : outcome.data.returnItemsProcess;
  const message =
    done.status === 'REJECTED'
      ? `Return #${done.number} rejected: every item was rejected, nothing refunded.`
      : `Return #${done.number} processed: refunded ${money(done.totalRefund)}, store credit ${money(done.totalStoreCredit)}${rejected.size > 0 ? `, ${rejected.size} ${rejected.size === 1 ? 'item' : 'items'} rejected` : ''}.`;
  return afterAction(req, pathOf(id), { done: message });
}

/** A refused action: back to the return with the service's words (which name it by its number). */
function refused(req: DashboardRequest, id: string, error: { code: string; message: string }): DoorResponse {
  if (error.code === 'NOT_FOUND') return notFound(req);
  return afterAction(req, pathOf(id), { error: failureOf(error).message });
}

/** Defines the new tag, if one is named, then sets the return's tags to those ticked plus it. */
async function saveTags(req: DashboardRequest, id: string) {
  const newTag = (req.form.get('newTag') ?? '').trim();
  if (newTag) {
    const defined = await runOperation(ops.defineReturnTag, { name: newTag }, req.ctx);
    if (!defined.ok) return defined;
  }
  return runOperation<{ returnTagsSet: { number: number } }>(ops.returnTagsSet, { id, tags: [...req.form.getAll('tags'), ...(newTag ? [newTag] : [])] }, req.ctx);
}

type Answered = { number: number; status: string };

export async function returnAction(req: DashboardRequest, id: string, name: string): Promise<DoorResponse> {
  const single = async (operation: typeof ops.returnFlag, field: string, variables: Record<string, unknown>, said: (ret: Answered) => string) => {
    const outcome = await runOperation<Record<string, Answered>>(operation, { id, ...variables }, req.ctx);
    return outcome.ok ? afterAction(req, pathOf(id), { done: said(outcome.data[field]) }) : refused(req, id, outcome.error);
  };
  switch (name) {
    case 'process':
      return confirmProcessing(req, id);
    case 'flag':
      return single(ops.returnFlag, 'returnFlag', {}, (ret) => `Return #${ret.number} flagged for review.`);
    case 'close':
      return single(ops.returnReject, 'returnReject', {}, (ret) => `Return #${ret.number} closed (rejected): its items no longer claim the order's units.`);
    case 'reset':
      if (req.form.get('confirm') !== 'yes') return afterAction(req, pathOf(id), { error: 'Nothing was reset: tick the box to confirm what the reset undoes.' });
      return single(ops.returnReset, 'returnReset', {}, (ret) => `Return #${ret.number} reset to open: nothing refunded or credited, every item back on it.`);
    case 'remove': {
      const items = req.form.getAll('items');
      return single(ops.returnItemsRemove, 'returnItemsRemove', { items }, (ret) => `${items.length} ${items.length === 1 ? 'item' : 'items'} removed from return #${ret.number}.`);
    }
    case 'note': {
      const outcome = await runOperation<{ returnNoteAdd: { return: Answered } }>(ops.returnNoteAdd, { id, content: req.form.get('content') ?? '' }, req.ctx);
      if (!outcome.ok) return refused(req, id, outcome.error);
      return afterAction(req, pathOf(id), { done: `Note added to return #${outcome.data.returnNoteAdd.return.number}.` });
    }
    case 'tags': {
      const outcome = await saveTags(req, id);
      if (!outcome.ok) return refused(req, id, outcome.error);
      return afterAction(req, pathOf(id), { done: `Tags of return #${(outcome.data as { returnTagsSet: { number: number } }).returnTagsSet.number} saved.` });
    }
    default:
      return notFound(req);
  }
}
