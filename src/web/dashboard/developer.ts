// Settings → Developer: API clients, their scopes and what each changed.
import { SCOPES } from '../../auth/scopes.ts';
import type { DoorResponse } from '../../door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, formatDate, html } from '../html.ts';
import { redirect } from '../http.ts';
import { historySection } from './history.ts';
import { ops } from '../operations.ts';
import { notFound, run, view, type DashboardRequest } from './kit.ts';


interface ApiClientRow {
  id: string;
  name: string;
  scopes: string[];
  revokedAt: string | null;
  createdAt: string;
}

export async function developerPage(req: DashboardRequest, created?: { secret: string; name: string }, error?: string): Promise<DoorResponse> {
  const { apiClients } = await run<{ apiClients: ApiClientRow[] }>(req, ops.apiClients);
  const rows = apiClients.map(
    (c) => html`<tr><td><a href="/admin/settings/developer/api-clients/${c.id}">${c.name}</a></td><td><code>${c.id}</code></td><td>${c.scopes.join(' ')}</td><td>${formatDate(c.createdAt)}</td>
<td>${c.revokedAt ? html`Revoked ${formatDate(c.revokedAt)}` : html`<form method="post" action="/admin/settings/developer/api-clients/${c.id}/revoke">${csrfField(req.session.csrfToken)}<button type="submit" class="secondary" aria-label="Revoke ${c.name}">Revoke</button></form>`}</td></tr>`,
  );
  const scopeBoxes = SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`);
  return view(
    req,
    created ? 201 : error ? 400 : 200,
    'Settings → Developer',
    html`${created ? html`<div class="notice" role="status"><p>API client <strong>${created.name}</strong> created. Copy its secret now: it is shown only this once.</p><code class="secret" id="new-secret">${created.secret}</code></div>` : ''}
${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<h2>API clients</h2>
<div class="table" role="region" aria-label="API clients" tabindex="0"><table><thead><tr><th>Name</th><th>Id</th><th>Scopes</th><th>Created</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table></div>
<h2>Add an API client</h2>
<form method="post" action="/admin/settings/developer/api-clients" class="card">${csrfField(req.session.csrfToken)}
<label for="client-name">Name</label><input type="text" id="client-name" name="name" required maxlength="100">
<fieldset><legend>Scopes</legend>${scopeBoxes}</fieldset>
<button type="submit">Create API client</button></form>`,
  );
}

export async function createClient(req: DashboardRequest): Promise<DoorResponse> {
  const name = req.form.get('name') ?? '';
  const scopes = req.form.getAll('scopes');
  const outcome = await runOperation<{ apiClientCreate: { secret: string; apiClient: { name: string } } }>(ops.apiClientCreate, { name, scopes }, req.ctx);
  if (!outcome.ok) return developerPage(req, undefined, outcome.error.message);
  return developerPage(req, { secret: outcome.data.apiClientCreate.secret, name: outcome.data.apiClientCreate.apiClient.name });
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
  const outcome = await runOperation(ops.apiClientRevoke, { id }, req.ctx);
  if (!outcome.ok) return outcome.error.code === 'NOT_FOUND' ? notFound(req) : developerPage(req, undefined, outcome.error.message);
  return redirect('/admin/settings/developer');
}
