// Settings → Privacy: the erasure of every shopper's data of a store that leaves.
import type { DoorResponse } from '../../door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, html, type Html } from '../html.ts';
import { ops } from '../operations.ts';
import { failureOf, view, type DashboardRequest } from './kit.ts';

export type ErasureCountRows = Record<string, number>;

export function erasureSummary(total: number, counts: ErasureCountRows): Html {
  const changed = Object.entries(counts).filter(([, n]) => n > 0);
  return html`<div class="notice" role="status" id="erasure-result"><p>${total === 0 ? 'Nothing was left to erase.' : `Erased: ${total} records changed.`}</p>
${changed.length > 0 ? html`<ul>${changed.map(([kind, n]) => html`<li>${kind}: ${n}</li>`)}</ul>` : ''}</div>`;
}

/** Settings → Privacy: the erasure of every shopper's data of the store, for a merchant that leaves. */
export function privacySettingsPage(req: DashboardRequest, result?: { status: number; message: Html }): DoorResponse {
  return view(
    req,
    result?.status ?? 200,
    'Settings → Privacy',
    html`${result?.message ?? ''}<p>A shopper's data is exported or erased from their customer page.</p>
<h2>Leaving the service</h2>
<form method="post" action="/admin/settings/privacy/erase-store" class="card">${csrfField(req.session.csrfToken)}
<p>Erases every shopper's personal data in the store: names, e-mails, phone numbers, addresses, notes, custom fields and events, and the values in the store's history. Orders and returns keep their amounts, dates, products and statuses. It cannot be undone.</p>
<label for="confirm-store">Type the store's id to confirm</label><input type="text" id="confirm-store" name="confirmStoreId" required autocomplete="off">
<button type="submit" id="store-erase">Erase every shopper's data</button></form>`,
  );
}

export async function eraseStoreData(req: DashboardRequest): Promise<DoorResponse> {
  const outcome = await runOperation<{ storeCustomerDataErase: { total: number; counts: ErasureCountRows } }>(
    ops.storeCustomerDataErase,
    { confirmStoreId: req.form.get('confirmStoreId') ?? '' },
    req.ctx,
  );
  if (!outcome.ok) {
    const refusal = failureOf(outcome.error);
    return privacySettingsPage(req, { status: refusal.status, message: html`<div class="error" role="alert">${refusal.message}</div>` });
  }
  const { total, counts } = outcome.data.storeCustomerDataErase;
  return privacySettingsPage(req, { status: 200, message: erasureSummary(total, counts) });
}
