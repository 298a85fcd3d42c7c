// Webhook subscriptions: the list and a new one; one subscription's settings (enabled, URL,
// topics, secret), its deletion, replays, and its delivery log page by page with retries.
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html, type Html } from '../html.ts';
import { ops } from '../operations.ts';
import { afterAction, cellsOf, dataTable, failureOf, notFound, run, view, type Connection, type DashboardRequest } from './kit.ts';


interface WebhookRow {
  id: string;
  url: string;
  topics: string[];
  enabled: boolean;
  createdAt: string;
}

const WEBHOOKS = '/admin/webhooks';
const pathOf = (id: string) => `${WEBHOOKS}/${encodeURIComponent(id)}`;

function topicBoxes(topics: string[], chosen: string[], idPrefix: string): Html {
  return html`${topics.map((t) => html`<label class="check" for="${idPrefix}-${t}"><input type="checkbox" id="${idPrefix}-${t}" name="topics" value="${t}"${chosen.includes(t) ? html` checked` : ''}> ${t}</label>`)}`;
}

export async function webhooksPage(req: DashboardRequest): Promise<DoorResponse> {
  const data = await run<{ webhookTopics: string[]; webhookSubscriptions: { nodes: WebhookRow[] } }>(req, ops.webhooks);
  const columns = ['URL', 'Topics', 'State', 'Created'];
  const rows = data.webhookSubscriptions.nodes.map(
    (w) => html`<tr>${cellsOf(columns, [html`<a href="/admin/webhooks/${w.id}">${w.url}</a>`, html`${w.topics.join(' ')}`, html`${w.enabled ? 'enabled' : 'disabled'}`, html`${formatDate(w.createdAt)}`])}</tr>`,
  );
  return view(
    req,
    200,
    'Webhooks',
    html`${dataTable('Webhook subscriptions', columns, rows.length > 0 ? rows : html`<tr class="empty"><td colspan="4">No webhooks yet.</td></tr>`)}
<h2>Add a webhook</h2>
<form method="post" action="/admin/webhooks" class="card">${csrfField(req.session.csrfToken)}
<label for="webhook-url">URL</label><input type="url" id="webhook-url" name="url" required>
<label for="webhook-secret">Secret (sent as the bearer token; optional)</label><input type="password" id="webhook-secret" name="secret" autocomplete="off">
<fieldset><legend>Topics</legend>${topicBoxes(data.webhookTopics, [], 'new-topic')}</fieldset>
<button type="submit">Create webhook</button></form>`,
  );
}

export async function createWebhook(req: DashboardRequest): Promise<DoorResponse> {
  const secret = req.form.get('secret');
  const input = { url: req.form.get('url') ?? '', topics: req.form.getAll('topics'), ...(secret ? { secret } : {}) };
  const outcome = await runOperation<{ webhookSubscriptionCreate: { id: string; url: string } }>(ops.createWebhook, { input }, req.ctx);
  if (!outcome.ok) return afterAction(req, WEBHOOKS, { error: `Webhook not created: ${failureOf(outcome.error).message}` });
  const created = outcome.data.webhookSubscriptionCreate;
  return afterAction(req, pathOf(created.id), { done: `Webhook to ${created.url} created.` });
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

function settingsForm(req: DashboardRequest, w: WebhookRow, topics: string[]): Html {
  return html`<form method="post" action="/admin/webhooks/${w.id}/update" class="card" id="webhook-settings">${csrfField(req.session.csrfToken)}
<label for="edit-url">URL</label><input type="url" id="edit-url" name="url" required value="${w.url}">
<label for="edit-secret">New secret (empty keeps the current one)</label><input type="password" id="edit-secret" name="secret" autocomplete="off">
<label class="check"><input type="checkbox" name="removeSecret" value="yes"> Remove the secret</label>
<fieldset><legend>Topics</legend>${topicBoxes(topics, w.topics, 'edit-topic')}</fieldset>
<button type="submit">Save changes</button></form>`;
}

export async function webhookPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const after = req.query.get('after') || undefined;
  const data = await run<{ webhookTopics: string[]; webhookSubscription: WebhookRow | null; webhookDeliveries: Connection<DeliveryRow> }>(req, ops.webhook, { id, after });
  const w = data.webhookSubscription;
  if (!w) return notFound(req);
  const csrf = csrfField(req.session.csrfToken);
  const columns = ['Created', 'Topic', 'Event', 'Status', 'Attempts', 'Responses', 'Action'];
  const rows = data.webhookDeliveries.nodes.map(
    (d) => html`<tr data-delivery-id="${d.id}">${cellsOf(columns, [
      html`${formatDate(d.createdAt)}`,
      html`${d.event.topic}`,
      html`<code>${d.event.id}</code>`,
      html`${d.status}`,
      html`${d.attemptCount}`,
      html`${d.attempts.map((a) => html`<div>#${a.attemptNumber} ${a.responseStatus ?? 'no response'} ${a.durationMs} ms ${a.error ?? ''}</div>`)}`,
      d.status === 'DISCARDED' && w.enabled
        ? html`<form method="post" action="/admin/webhooks/${w.id}/deliveries/${d.id}/retry">${csrf}<button type="submit" class="secondary" aria-label="Retry delivery of event ${d.event.id}">Retry</button></form>`
        : html``,
    ])}</tr>`,
  );
  const { hasNextPage, endCursor } = data.webhookDeliveries.pageInfo;
  const pager = html`<p class="pager">${after ? html`<a href="${pathOf(w.id)}">Newest deliveries</a> ` : ''}${hasNextPage && endCursor ? html`<a href="${pathOf(w.id)}?${new URLSearchParams({ after: endCursor }).toString()}" rel="next">Older deliveries</a>` : ''}</p>`;
  return view(
    req,
    200,
    'Webhook',
    html`<section class="card"><p><strong>URL</strong> ${w.url}</p><p><strong>Topics</strong> ${w.topics.join(' ')}</p><p><strong>State</strong> <span id="webhook-state">${w.enabled ? 'enabled' : 'disabled'}</span></p>
<form method="post" action="/admin/webhooks/${w.id}/${w.enabled ? 'disable' : 'enable'}">${csrf}<button type="submit" class="secondary">${w.enabled ? 'Disable' : 'Enable'}</button>
<span class="hint">${w.enabled ? 'A disabled webhook receives nothing; its pending deliveries wait until it is enabled again.' : 'Enabling sends the deliveries that waited.'}</span></form></section>
<h2>Settings</h2>
${settingsForm(req, w, data.webhookTopics)}
<h2>Replay</h2>
${w.enabled
  ? html`<form method="post" action="/admin/webhooks/${w.id}/replay" class="card">${csrf}
<label for="replay-since">Deliver again every event since (UTC)</label><input type="datetime-local" id="replay-since" name="since" required>
<button type="submit">Replay</button></form>`
  : html`<p id="replay-disabled">A disabled webhook cannot be replayed: enable it first.</p>`}
<h2>Delivery log</h2>
${dataTable('Delivery log', columns, rows.length > 0 ? rows : html`<tr class="empty"><td colspan="7">No deliveries${after ? ' older than these' : ' yet'}.</td></tr>`)}
${pager}
<h2>Delete</h2>
<form method="post" action="/admin/webhooks/${w.id}/delete" class="card">${csrf}
<p>Deleting the webhook removes it with its pending and past deliveries. It cannot be undone.</p>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> Delete this webhook and its delivery log</label>
<div><button type="submit" id="webhook-delete">Delete webhook</button></div></form>`,
  );
}

/** A refusal goes back to the webhook's page with the service's words; an unknown webhook is a 404. */
function refused(req: DashboardRequest, id: string, what: string, error: { code: string; message: string }): DoorResponse {
  if (error.code === 'NOT_FOUND') return notFound(req);
  return afterAction(req, pathOf(id), { error: `${what}: ${error.code === 'BAD_USER_INPUT' && what === 'Replay refused' ? 'give the date and time to replay from' : failureOf(error).message}` });
}

export async function replayWebhook(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const since = req.form.get('since') ?? '';
  // datetime-local sends no zone (and may omit seconds); the form says UTC.
  const instant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(since) ? `${since.length === 16 ? `${since}:00` : since}Z` : since;
  const outcome = await runOperation<{ webhookSubscriptionReplay: number }>(ops.replayWebhook, { id, since: instant }, req.ctx);
  if (!outcome.ok) return refused(req, id, 'Replay refused', outcome.error);
  const queued = outcome.data.webhookSubscriptionReplay;
  return afterAction(req, pathOf(id), { done: `${queued} ${queued === 1 ? 'delivery' : 'deliveries'} queued.` });
}

/** enable, disable, update (the settings form) and delete. */
export async function changeWebhook(req: DashboardRequest, id: string, change: string): Promise<DoorResponse> {
  if (change === 'delete') {
    if (req.form.get('confirm') !== 'yes') return afterAction(req, pathOf(id), { error: 'Nothing was deleted: tick the box to confirm the deletion.' });
    const outcome = await runOperation(ops.deleteWebhook, { id }, req.ctx);
    if (!outcome.ok) return refused(req, id, 'Not deleted', outcome.error);
    return afterAction(req, WEBHOOKS, { done: 'Webhook deleted with its delivery log.' });
  }
  let input: Record<string, unknown>;
  let done: string;
  if (change === 'enable' || change === 'disable') {
    input = { enabled: change === 'enable' };
    done = change === 'enable' ? 'Webhook enabled: deliveries that waited are on their way.' : 'Webhook disabled: new deliveries wait until it is enabled again.';
  } else if (change === 'update') {
    const secret = req.form.get('secret') ?? '';
    input = {
      url: req.form.get('url') ?? '',
      topics: req.form.getAll('topics'),
      ...(req.form.get('removeSecret') === 'yes' ? { secret: null } : secret ? { secret } : {}),
    };
    done = 'Webhook settings saved.';
  } else {
    return notFound(req);
  }
  const outcome = await runOperation(ops.updateWebhook, { id, input }, req.ctx);
  if (!outcome.ok) return refused(req, id, 'Not saved', outcome.error);
  return afterAction(req, pathOf(id), { done });
}

export async function retryDelivery(req: DashboardRequest, id: string, deliveryId: string): Promise<DoorResponse> {
  const outcome = await runOperation<{ webhookDeliveryRetry: { event: { id: string } } }>(ops.retryDelivery, { id: deliveryId }, req.ctx);
  if (!outcome.ok) return refused(req, id, 'Retry refused', outcome.error);
  return afterAction(req, pathOf(id), { done: `Event ${outcome.data.webhookDeliveryRetry.event.id} queued for delivery again.` });
}
