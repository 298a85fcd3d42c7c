// Settings → Privacy: the erasure of every shopper's data of a store that leaves.
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, html } from '../html.ts';
import { ops } from '../operations.ts';
import { afterAction, failureOf, view, type DashboardRequest } from './kit.ts';

export type ErasureCountRows = Record<string, number>;

/** What an erasure changed, as the message after it: the total and each kind of record it touched. */
export function erasureSummary(total: number, counts: ErasureCountRows): string {
  const changed = Object.entries(counts).filter(([, n]) => n > 0);
  return total === 0 ? 'Nothing was left to erase.' : `Erased: ${total} records changed (${changed.map(([kind, n]) => `${kind}: ${n}`).join(', ')}).`;
}

const PRIVACY = '/admin/settings/privacy';

/** Settings → Privacy: the erasure of every shopper's data of the store, for a merchant that leaves. */
export function privacySettingsPage(req: DashboardRequest): DoorResponse {
  return view(
    req,
    200,
    'Settings → Privacy',
    html`<p>A shopper's data is exported or erased from their customer page.</p>
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
    if (outcome.error.code === 'FORBIDDEN') throw failureOf(outcome.error);
    return afterAction(req, PRIVACY, { error: `Nothing was erased: ${failureOf(outcome.error).message}` });
  }
  const { total, counts } = outcome.data.storeCustomerDataErase;
  return afterAction(req, PRIVACY, { done: erasureSummary(total, counts) });
}
