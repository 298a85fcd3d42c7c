// History: the audit trail of a record, or of what an actor changed, newest first.
import { type Operation } from '../../schema/execute.ts';
import { formatDate, html, type Html } from '../html.ts';
import { ops } from '../operations.ts';
import { run, type Connection, type DashboardRequest } from './kit.ts';


interface AuditEntryRow {
  id: string;
  occurredAt: string;
  actor: { kind: string; id: string | null; name: string | null };
  door: string;
  operation: string | null;
  requestId: string | null;
  object: { kind: string; id: string };
  parent: { kind: string; id: string } | null;
  action: 'INSERT' | 'UPDATE' | 'DELETE';
  changes: { field: string; before: unknown; after: unknown }[];
}

const ACTION_WORDS: Record<AuditEntryRow['action'], string> = { INSERT: 'created', UPDATE: 'changed', DELETE: 'deleted' };

function actorText({ kind, id, name }: AuditEntryRow['actor']): string {
  switch (kind) {
    case 'API_CLIENT':
      return `API client ${name ?? ''} (${id})`;
    case 'MERCHANT_USER':
      return name ?? `merchant user ${id}`;
    case 'SHOPPER':
      return `Shopper (session ${id})`;
    case 'JOB':
      return `Job ${id}`;
    default:
      return `Database${id ? ` (${id})` : ''}`;
  }
}

/** An object kind in words: ORDER_LINE_ITEM is "Order line item", API_CLIENT "API client". */
function kindText(kind: string): string {
  const words = kind.toLowerCase().replace(/^api_/, 'API_').split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function auditValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function historyRow(entry: AuditEntryRow): Html {
  const kind = kindText(entry.object.kind);
  const what = entry.parent ? `${kind} ${entry.object.id} ${ACTION_WORDS[entry.action]}` : `${kind} ${ACTION_WORDS[entry.action]}`;
  const changes = entry.changes.map((c) =>
    entry.action === 'UPDATE' ? html`<li><code>${c.field}</code> ${auditValue(c.before)} → ${auditValue(c.after)}</li>` : html`<li><code>${c.field}</code> ${auditValue(entry.action === 'INSERT' ? c.after : c.before)}</li>`,
  );
  // The labels head each cell where a narrow screen stacks an entry's cells (app.css).
  return html`<tr data-entry-id="${entry.id}"><td data-label="When">${formatDate(entry.occurredAt)}</td><td data-label="Who">${actorText(entry.actor)}</td>
<td data-label="Through">${entry.door}${entry.operation ? html` · ${entry.operation}` : ''}${entry.requestId ? html`<br><code>${entry.requestId}</code>` : ''}</td><td data-label="What">${what}</td><td><ul>${changes}</ul></td></tr>`;
}

interface HistoryList {
  title: string;
  /** objectHistory or actorHistory, and its variables. */
  operation: Operation;
  variables: Record<string, unknown>;
  /** The page's address: older entries are linked from it with their cursor as `history`; absent, only the newest page is shown. */
  path?: string;
}

/** A history section, newest first: the page after the `history` cursor of the page's address when the list pages. */
export async function historySection(req: DashboardRequest, list: HistoryList): Promise<Html> {
  const after = list.path ? req.query.get('history') || undefined : undefined;
  const { auditEntries } = await run<{ auditEntries: Connection<AuditEntryRow> }>(req, list.operation, { ...list.variables, after });
  const { hasNextPage, endCursor } = auditEntries.pageInfo;
  const older =
    list.path && hasNextPage && endCursor ? html`<p class="pager"><a href="${list.path}?${new URLSearchParams({ history: endCursor }).toString()}" rel="next">Older changes</a></p>` : '';
  return html`<h2>${list.title}</h2>
${auditEntries.nodes.length > 0
  ? html`<div class="table" role="region" aria-label="History" tabindex="0"><table class="history"><thead><tr><th>When</th><th>Who</th><th>Through</th><th>What</th><th>Changes</th></tr></thead><tbody>${auditEntries.nodes.map(historyRow)}</tbody></table></div>${older}`
  : html`<p>No changes recorded.</p>`}`;
}

/** The history of a record and its parts (an order's lines, a return's items), on the record's page at `path`. */
export const objectHistory = (req: DashboardRequest, path: string, kind: string, id: string) =>
  historySection(req, { title: 'History', operation: ops.objectHistory, variables: { kind, id }, path });
