// Settings → Developer: API clients, their scopes and what each changed.
import { SCOPES } from '../../auth/scopes.ts';
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html } from '../html.ts';
import { historySection } from './history.ts';
import { ops } from '../operations.ts';
import { afterAction, cellsOf, dataTable, failureOf, notFound, run, view, type DashboardRequest } from './kit.ts';

const DEVELOPER = '/admin/settings/developer';


interface ApiClientRow {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: string | null;
  createdAt: string;
}

/** The page; `refused` is a creation the service refused, shown again with what was typed. */
export async function developerPage(req: DashboardRequest, refused?: { error: string; name: string; scopes: string[] }): Promise<DoorResponse> {
  const { apiClients } = await run<{ apiClients: ApiClientRow[] }>(req, ops.apiClients);
  const columns = ['Name', 'Id', 'Scopes', 'Created', 'Status'];
  const rows = apiClients.map(
    (c) => html`<tr>${cellsOf(columns, [
      html`<a href="/admin/settings/developer/api-clients/${c.id}">${c.name}</a>`,
      html`<code>${c.id}</code>`,
      html`${c.scopes.join(' ')}`,
      html`${formatDate(c.createdAt)}`,
      c.revokedAt
        ? html`Revoked ${formatDate(c.revokedAt)}`
        : html`<form method="post" action="/admin/settings/developer/api-clients/${c.id}/revoke">${csrfField(req.session.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke ${c.name}">Revoke</button></form>`,
    ])}</tr>`,
  );
  const scopeBoxes = SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"${refused?.scopes.includes(s) ? html` checked` : ''}> ${s}</label>`);
  return view(
    req,
    refused ? 400 : 200,
    'Settings → Developer',
    html`${refused ? html`<div class="error" role="alert" id="create-error">API client not created: ${refused.error}</div>` : ''}
<h2>API clients</h2>
${dataTable('API clients', columns, rows)}
<h2>Add an API client</h2>
<form method="post" action="/admin/settings/developer/api-clients" class="card">${csrfField(req.session.csrfToken)}
<label for="client-name">Name</label><input type="text" id="client-name" name="name" required maxlength="100" value="${refused?.name ?? ''}">
<fieldset><legend>Scopes (at least one)</legend>${scopeBoxes}</fieldset>
<button type="submit">Create API client</button></form>`,
  );
}

export async function createClient(req: DashboardRequest): Promise<DoorResponse> {
  const name = req.form.get('name') ?? '';
  const scopes = req.form.getAll('scopes');
  const outcome = await runOperation<{ apiClientCreate: { secret: string; apiClient: { name: string } } }>(ops.apiClientCreate, { name, scopes }, req.ctx);
  if (!outcome.ok) return developerPage(req, { error: failureOf(outcome.error).message, name, scopes });
  const { secret, apiClient } = outcome.data.apiClientCreate;
  // The secret rides the redirect's one-time message only: reloading the page creates nothing and shows it no more.
  return afterAction(req, DEVELOPER, { done: `API client ${apiClient.name} created. Copy its secret now: it is shown only this once.`, secret });
}

/** An API client: what it is, what it changed, and the history of the client itself. */
export async function apiClientPage(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const { apiClients } = await run<{ apiClients: ApiClientRow[] }>(req, ops.apiClients);
  const client = apiClients.find((c) => c.id === id);
  if (!client) return notFound(req);
  const path = `/admin/settings/developer/api-clients/${encodeURIComponent(client.id)}`;
  const made = await historySection(req, { title: 'Changes made by this client', operation: ops.actorHistory, variables: { kind: 'API_CLIENT', id: client.id }, path });
  // The client's own history is short (created, revoked): its newest page is all of it.
  const own = await historySection(req, { title: 'History of this client', operation: ops.objectHistory, variables: { kind: 'API_CLIENT', id: client.id } });
  return view(
    req,
    200,
    `API client ${client.name}`,
    html`<section class="card"><p><strong>Id</strong> <code>${client.id}</code> · <strong>Created</strong> ${formatDate(client.createdAt)}${client.revokedAt ? html` · <strong>Revoked</strong> ${formatDate(client.revokedAt)}` : ''}</p>
<p><strong>Scopes</strong> ${client.scopes.join(' ')}</p></section>
${made}
${own}`,
  );
}

export async function revokeClient(req: DashboardRequest, id: string): Promise<DoorResponse> {
  const outcome = await runOperation<{ apiClientRevoke: { name: string } }>(ops.apiClientRevoke, { id }, req.ctx);
  if (!outcome.ok) return outcome.error.code === 'NOT_FOUND' ? notFound(req) : afterAction(req, DEVELOPER, { error: `Not revoked: ${failureOf(outcome.error).message}` });
  return afterAction(req, DEVELOPER, { done: `API client ${outcome.data.apiClientRevoke.name} revoked: its secret no longer works.` });
}
