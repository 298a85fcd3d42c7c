// Webhook subscriptions, their delivery logs and replays.
import type { DoorResponse } from '../../door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html } from '../html.ts';
import { redirect } from '../http.ts';
import { ops } from '../operations.ts';
import { notFound, run, view, type DashboardRequest } from './kit.ts';


interface WebhookRow {
  id: string;
  url: string;
  topics: string[];
  enabled: boolean;
  createdAt: string;
}

export async function webhooksPage(req: DashboardRequest, error?: string): Promise<DoorResponse> {
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
<div class="table" role="region" aria-label="Webhook subscriptions" tabindex="0"><table><thead><tr><th>URL</th><th>Topics</th><th>State</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table></div>
<h2>Add a webhook</h2>
<form method="post" action="/admin/webhooks" class="card">${csrfField(req.session.csrfToken)}
<label for="webhook-url">URL</label><input type="url" id="webhook-url" name="url" required>
<label for="webhook-secret">Secret (sent as the bearer token; optional)</label><input type="password" id="webhook-secret" name="secret" autocomplete="off">
<fieldset><legend>Topics</legend>${topics}</fieldset>
<button type="submit">Create webhook</button></form>`,
  );
}

export async function createWebhook(req: DashboardRequest): Promise<DoorResponse> {
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

export async function webhookPage(req: DashboardRequest, id: string, message?: { error?: string; done?: string }): Promise<DoorResponse> {
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
<div class="table" role="region" aria-label="Delivery log" tabindex="0"><table><thead><tr><th>Created</th><th>Topic</th><th>Event</th><th>Status</th><th>Attempts</th><th>Responses</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  );
}

export async function replayWebhook(req: DashboardRequest, id: string): Promise<DoorResponse> {
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
