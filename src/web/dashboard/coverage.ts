// Settings → Coverage: the coverage products offered at checkout and the return processing fee.
import type { DoorResponse } from '../../http/door.ts';
import { runOperation } from '../../schema/execute.ts';
import { csrfField, html } from '../html.ts';
import { ops } from '../operations.ts';
import { afterAction, failureOf, notFound, run, view, type DashboardRequest } from './kit.ts';


interface CoverageRow {
  id: string | null;
  type: string;
  enabled: boolean;
  title: string;
  description: string;
  percentage: string;
  minimumPrice: string;
  maximumPrice: string;
  eligibleProductIds: string[];
}

type UserErrorRows = { field: string[] | null; message: string }[];

function describeUserErrors(errors: UserErrorRows): string {
  return errors.map((e) => (e.field ? `${e.field.slice(1).join('.')}: ${e.message}` : e.message)).join('; ');
}

const COVERAGE = '/admin/settings/coverage';

/**
 * The settings; `refused` is a save the service refused: its form is shown again as it was
 * sent (the values typed, not the saved ones) under the reason.
 */
export async function coveragePage(req: DashboardRequest, refused?: { which: string; error: string }): Promise<DoorResponse> {
  const data = await run<{ coverageProducts: CoverageRow[]; billingSettings: { returnProcessingFee: { amount: string; currency: string } } }>(req, ops.coverageSettings);
  const typed = (which: string) => refused?.which === which;
  const reason = (which: string) => (typed(which) ? html`<div class="error" role="alert">Not saved: ${refused!.error}</div>` : '');
  const forms = data.coverageProducts.map((saved) => {
    const key = saved.type.toLowerCase();
    const c = typed(key)
      ? {
          ...saved,
          enabled: req.form.get('enabled') === 'true',
          title: req.form.get('title') ?? '',
          description: req.form.get('description') ?? '',
          percentage: req.form.get('percentage') ?? '',
          minimumPrice: req.form.get('minimumPrice') ?? '',
          maximumPrice: req.form.get('maximumPrice') ?? '',
          eligibleProductIds: [req.form.get('eligibleProductIds') ?? ''],
        }
      : saved;
    return html`<form method="post" action="/admin/settings/coverage/${key}" class="card">${csrfField(req.session.csrfToken)}
<h2>${c.type === 'SHIPPING_FAILURE' ? 'Shipping protection' : 'Return shipping'}</h2>${reason(key)}
${c.id ? html`<p>Coverage product id (what a storefront adds to the cart): <code>${c.id}</code></p>` : ''}
<label class="check"><input type="checkbox" name="enabled" value="true" ${c.enabled ? html`checked` : ''}> Offered at checkout</label>
<label for="${key}-title">Title</label><input type="text" id="${key}-title" name="title" value="${c.title}" maxlength="200">
<label for="${key}-description">Description</label><textarea id="${key}-description" name="description" maxlength="1000">${c.description}</textarea>
<label for="${key}-percentage">Percent of the covered merchandise value</label><input type="text" inputmode="decimal" id="${key}-percentage" name="percentage" value="${c.percentage}">
<label for="${key}-minimum">Minimum price (in the cart's currency)</label><input type="text" inputmode="decimal" id="${key}-minimum" name="minimumPrice" value="${c.minimumPrice}">
<label for="${key}-maximum">Maximum price (in the cart's currency)</label><input type="text" inputmode="decimal" id="${key}-maximum" name="maximumPrice" value="${c.maximumPrice}">
<label for="${key}-products">Covered product ids, comma-separated (empty: every product)</label><input type="text" id="${key}-products" name="eligibleProductIds" value="${c.eligibleProductIds.join(', ')}">
<button type="submit">Save</button></form>`;
  });
  const saved = data.billingSettings.returnProcessingFee;
  const fee = typed('billing') ? { ...saved, amount: req.form.get('returnProcessingFee') ?? '' } : saved;
  return view(
    req,
    refused ? 400 : 200,
    'Settings → Coverage',
    html`${forms}
<form method="post" action="/admin/settings/coverage/billing" class="card">${csrfField(req.session.csrfToken)}
<h2>Return processing fee</h2>${reason('billing')}
<label for="return-fee">Charged per return created, in ${fee.currency}</label><input type="text" inputmode="decimal" id="return-fee" name="returnProcessingFee" value="${fee.amount}">
<button type="submit">Save</button></form>`,
  );
}

export async function saveCoverage(req: DashboardRequest, which: string): Promise<DoorResponse> {
  const value = (name: string) => {
    const raw = req.form.get(name)?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  if (which === 'billing') {
    const outcome = await runOperation<{ billingSettingsUpdate: { userErrors: UserErrorRows } }>(ops.updateBilling, { input: { returnProcessingFee: value('returnProcessingFee') ?? '' } }, req.ctx);
    if (!outcome.ok) return coveragePage(req, { which, error: failureOf(outcome.error).message });
    const errors = outcome.data.billingSettingsUpdate.userErrors;
    return errors.length > 0 ? coveragePage(req, { which, error: describeUserErrors(errors) }) : afterAction(req, COVERAGE, { done: 'Return processing fee saved.' });
  }
  const type = which.toUpperCase();
  if (type !== 'SHIPPING_FAILURE' && type !== 'RETURN_SHIPPING') return notFound(req);
  const products = value('eligibleProductIds');
  const input = {
    type,
    enabled: req.form.get('enabled') === 'true',
    title: value('title'),
    description: req.form.get('description') ?? undefined,
    percentage: value('percentage'),
    minimumPrice: value('minimumPrice'),
    maximumPrice: value('maximumPrice'),
    eligibleProductIds: products ? products.split(',').map((id) => id.trim()).filter(Boolean) : [],
  };
  const outcome = await runOperation<{ coverageSettingsUpdate: { userErrors: UserErrorRows } }>(ops.updateCoverage, { input }, req.ctx);
  if (!outcome.ok) return coveragePage(req, { which, error: failureOf(outcome.error).message });
  const errors = outcome.data.coverageSettingsUpdate.userErrors;
  if (errors.length > 0) return coveragePage(req, { which, error: describeUserErrors(errors) });
  return afterAction(req, COVERAGE, { done: `${type === 'SHIPPING_FAILURE' ? 'Shipping protection' : 'Return shipping'} saved.` });
}
