// The overview, the page /admin opens on: a period's returns figures (the v3 returnsOverview
// query), each chart drawn here as SVG beside a table of its numbers, and each number a link
// to the returns or orders search that lists its records.
import type { DoorResponse } from '../../http/door.ts';
import { html, type Html } from '../html.ts';
import { ops } from '../operations.ts';
import { cellsOf, run, view, type DashboardRequest } from './kit.ts';

type Amount = { amount: string };

interface Overview {
  asOf: string;
  needingAction: { total: number; byStatus: { status: string; count: number }[]; byAge: { age: string; minDays: number; maxDays: number | null; count: number }[] };
  days: { day: string; opened: number; completed: number }[];
  refunds: { currency: string; refunded: Amount; storeCredit: Amount; days: { day: string; refunded: Amount; storeCredit: Amount }[] }[];
  fees: { currency: string; total: Amount; days: { day: string; amount: Amount }[] }[] | null;
  returnRate: { unitsOrdered: number; unitsReturned: number; rate: number | null; top: { sku: string; title: string | null; unitsOrdered: number; unitsReturned: number; rate: number }[] } | null;
  reasons: { reason: string | null; units: number; returns: number }[];
  completion: { completed: number; medianSeconds: number | null };
}

const DAY_MS = 86_400_000;
const PRESETS = ['7', '30', '90'] as const;
const DEFAULT_PRESET = '30';
const MAX_DAYS = 366;

/** The period shown: whole UTC days, `firstDay` to `lastDay` inclusive. */
interface Period {
  choice: string;
  firstDay: string;
  lastDay: string;
  from: Date;
  to: Date;
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const parseDay = (text: string | null) => (text && /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ? new Date(`${text}T00:00:00Z`) : null);

/** The period the form asks for: the last 7, 30 or 90 days up to today, or from one day to another; or what is wrong with it. */
function periodOf(query: URLSearchParams, now: Date): Period | { error: string; choice: string; firstDay: string; lastDay: string } {
  const choice = query.get('period') ?? (query.get('from') || query.get('to') ? 'custom' : DEFAULT_PRESET);
  const today = parseDay(dayOf(now))!;
  if (choice !== 'custom') {
    const days = Number((PRESETS as readonly string[]).includes(choice) ? choice : DEFAULT_PRESET);
    const to = new Date(today.getTime() + DAY_MS);
    const from = new Date(to.getTime() - days * DAY_MS);
    return { choice: String(days), from, to, firstDay: dayOf(from), lastDay: dayOf(today) };
  }
  const firstDay = query.get('from') ?? '';
  const lastDay = query.get('to') ?? '';
  const from = parseDay(firstDay);
  const last = parseDay(lastDay);
  const refused = (error: string) => ({ error, choice, firstDay, lastDay });
  if (!from || !last) return refused('Give both days of a custom period as dates (2026-11-01).');
  if (last < from) return refused('The last day of the period comes before its first day.');
  if ((last.getTime() - from.getTime()) / DAY_MS + 1 > MAX_DAYS) return refused(`A period is at most ${MAX_DAYS} days.`);
  return { choice, from, to: new Date(last.getTime() + DAY_MS), firstDay, lastDay };
}

function periodForm(period: { choice: string; firstDay: string; lastDay: string }, error?: string): Html {
  const option = (value: string, label: string) => html`<option value="${value}"${period.choice === value ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/admin" class="card period"><div class="period-fields">
<div><label for="period">Period</label><select id="period" name="period">${option('7', 'Last 7 days')}${option('30', 'Last 30 days')}${option('90', 'Last 90 days')}${option('custom', 'From … to …')}</select></div>
<div><label for="from">From (custom)</label><input type="date" id="from" name="from" value="${period.firstDay}"${error ? html` aria-invalid="true" aria-describedby="period-error"` : ''}></div>
<div><label for="to">To (custom, included)</label><input type="date" id="to" name="to" value="${period.lastDay}"${error ? html` aria-invalid="true" aria-describedby="period-error"` : ''}></div>
<div><button type="submit">Show</button></div></div>
${error ? html`<p class="error" role="alert" id="period-error">${error}</p>` : ''}<p class="hint">Days are UTC. A custom period takes the From and To days; the others end today.</p></form>`;
}

// ------------------------------------------------------------------ links to the records

const search = (list: 'returns' | 'orders', q: string) => `/admin/${list}?${new URLSearchParams({ q }).toString()}`;
const quoted = (value: string) => (/^[^\s"()\\<>=-][^\s"()\\]*$/.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`);
const link = (href: string, text: string | number, label?: string) => html`<a href="${href}"${label ? html` aria-label="${label}"` : ''}>${String(text)}</a>`;

/** `field` within the period, as the search syntax writes it with whole days. */
const within = (field: string, period: Period) => `${field}:>=${period.firstDay} ${field}:<${dayOf(period.to)}`;

// ------------------------------------------------------------------ charts

const VIEW_W = 600;
const AXIS_W = 60;
const TOP = 10;
const PLOT_H = 160;
const LABEL_H = 24;

/** A round upper bound for an axis, so its midpoint reads well too. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  // Steps whose half is as round as they are, so counts keep whole numbers on the axis.
  return [1, 2, 4, 6, 8, 10].find((s) => s * power >= value)! * power;
}

const num = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
const shortDay = (day: string) => day.slice(5);

interface Series {
  name: string;
  className: string;
  values: number[];
}

/** Bars per day: side by side (grouped) or on top of each other (stacked), with a y axis and the first, middle and last day. */
function dayChart(id: string, title: string, days: string[], series: Series[], stacked: boolean): Html {
  const plotW = VIEW_W - AXIS_W - 8;
  const totals = days.map((_d, i) => (stacked ? series.reduce((sum, s) => sum + s.values[i], 0) : Math.max(...series.map((s) => s.values[i]))));
  const max = niceMax(Math.max(0, ...totals));
  const slot = plotW / Math.max(1, days.length);
  const y = (value: number) => TOP + PLOT_H - (value / max) * PLOT_H;
  const bars = days.map((_day, i) => {
    let base = 0;
    return series.map((s, k) => {
      const value = s.values[i];
      if (value <= 0) return '';
      const width = stacked ? slot * 0.8 : (slot * 0.8) / series.length;
      const x = AXIS_W + i * slot + slot * 0.1 + (stacked ? 0 : k * width);
      const top = y(base + value);
      const height = y(base) - top;
      if (stacked) base += value;
      return html`<rect class="${s.className}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(0.6, width).toFixed(1)}" height="${Math.max(0.5, height).toFixed(1)}"></rect>`;
    });
  });
  const ticks = [0, max / 2, max].map(
    (value) => html`<line class="grid" x1="${AXIS_W}" x2="${VIEW_W - 8}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"></line><text class="axis" x="${AXIS_W - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${num(value)}</text>`,
  );
  const labelled = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])].filter((i) => i >= 0);
  const dayLabels = labelled.map((i) => {
    const x = AXIS_W + i * slot + slot / 2;
    const anchor = i === 0 && days.length > 1 ? 'start' : i === days.length - 1 && days.length > 1 ? 'end' : 'middle';
    return html`<text class="axis" x="${(anchor === 'start' ? AXIS_W : anchor === 'end' ? VIEW_W - 8 : x).toFixed(1)}" y="${TOP + PLOT_H + 18}" text-anchor="${anchor}">${shortDay(days[i])}</text>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${VIEW_W} ${TOP + PLOT_H + LABEL_H}" role="img" aria-labelledby="${id}-title"><title id="${id}-title">${title}</title>${ticks}${bars}${dayLabels}</svg>
${legend(series)}`;
}

function legend(series: Series[]): Html {
  return html`<ul class="legend" aria-hidden="true">${series.map((s) => html`<li><span class="swatch ${s.className}"></span>${s.name}</li>`)}</ul>`;
}

const BAR_ROW = 34;
const BAR_VALUE_W = 100;

/** One horizontal bar per row, its label on the left and its value at its end. */
function barChart(id: string, title: string, rows: { label: string; value: number; shown: string }[]): Html {
  // Room for the longest label at a phone's larger text (app.css), at most 24 characters.
  const labelW = Math.min(24, Math.max(4, ...rows.map((r) => r.label.length))) * 15 + 12;
  const plotW = VIEW_W - labelW - BAR_VALUE_W;
  const max = Math.max(0, ...rows.map((r) => r.value)) || 1;
  const height = Math.max(1, rows.length) * BAR_ROW + 4;
  const bars = rows.map((row, i) => {
    const y = 4 + i * BAR_ROW;
    const width = (row.value / max) * plotW;
    const label = row.label.length > 24 ? `${row.label.slice(0, 23)}…` : row.label;
    return html`<text class="label" x="0" y="${y + 23}">${label}</text><rect class="series-1" x="${labelW}" y="${y + 7}" width="${Math.max(row.value > 0 ? 1 : 0, width).toFixed(1)}" height="${BAR_ROW - 12}"></rect><text class="label" x="${(labelW + width + 6).toFixed(1)}" y="${y + 23}">${row.shown}</text>`;
  });
  return html`<svg class="chart bars" viewBox="0 0 ${VIEW_W} ${height}" role="img" aria-labelledby="${id}-title"><title id="${id}-title">${title}</title>${bars}</svg>`;
}

// ------------------------------------------------------------------ tables

/**
 * A table of a chart's numbers with its caption: a scrolling region on a wide screen, as the
 * kit's tables; on a phone a table of more than four columns becomes cards of labelled cells,
 * a narrower one fits as it is.
 */
function figureTable(caption: string, columns: string[], rows: Html[][], foot?: Html[]): Html {
  const body = rows.length > 0 ? rows.map((cells) => html`<tr>${cellsOf(columns, cells)}</tr>`) : html`<tr class="empty"><td colspan="${columns.length}">None in this period.</td></tr>`;
  return html`<div class="table" role="region" aria-label="${caption}" tabindex="0"><table${columns.length > 4 ? html` class="cards"` : ''}><caption>${caption}</caption><thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead><tbody>${body}</tbody>${foot ? html`<tfoot><tr>${cellsOf(columns, foot)}</tr></tfoot>` : ''}</table></div>`;
}

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);

function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}

const AGE_LABELS: Record<string, string> = { DAYS_0_2: '0–2 days', DAYS_3_7: '3–7 days', DAYS_8_PLUS: '8+ days' };
const STATUS_LABELS: Record<string, string> = { OPEN: 'Open', IN_TRANSIT: 'In transit', DELIVERED: 'Delivered', NEEDS_REVIEW: 'Needs review', IN_REVIEW: 'In review', FLAGGED: 'Flagged' };

// ------------------------------------------------------------------ sections

function section(id: string, heading: string, body: Html): Html {
  return html`<section class="card figure" aria-labelledby="${id}"><h2 id="${id}">${heading}</h2>${body}</section>`;
}

function needingActionSection(o: Overview): Html {
  const statuses = o.needingAction.byStatus.map((s) => s.status.toLowerCase());
  const waiting = statuses.length === 1 ? `status:${statuses[0]}` : `(${statuses.map((s) => `status:${s}`).join(' OR ')})`;
  const asOf = new Date(o.asOf).getTime();
  // n whole days old: opened at most n + 1 days and more than n days ago (the domain's buckets).
  const olderThan = (days: number) => new Date(asOf - days * DAY_MS).toISOString();
  const ageQuery = (a: Overview['needingAction']['byAge'][number]) =>
    [waiting, a.maxDays === null ? '' : `created_at:>${olderThan(a.maxDays + 1)}`, a.minDays === 0 ? '' : `created_at:<=${olderThan(a.minDays)}`].filter(Boolean).join(' ');
  const statusLabel = (status: string) => STATUS_LABELS[status] ?? status;
  return section(
    'needing-action',
    'Returns needing action now',
    html`<p class="lead">${link(search('returns', waiting), o.needingAction.total, `${o.needingAction.total} returns needing action`)} returns are in a status other than complete, rejected or deleted.</p>
<div class="pair">${barChart('chart-status', 'Returns needing action by status', o.needingAction.byStatus.map((s) => ({ label: statusLabel(s.status), value: s.count, shown: String(s.count) })))}
${figureTable('Needing action by status', ['Status', 'Returns'], o.needingAction.byStatus.map((s) => [html`${statusLabel(s.status)}`, link(search('returns', `status:${s.status.toLowerCase()}`), s.count, `${s.count} ${statusLabel(s.status).toLowerCase()} returns`)]))}</div>
<div class="pair">${barChart('chart-age', 'Returns needing action by days since opened', o.needingAction.byAge.map((a) => ({ label: AGE_LABELS[a.age] ?? a.age, value: a.count, shown: String(a.count) })))}
${figureTable('Needing action by days since opened', ['Opened', 'Returns'], o.needingAction.byAge.map((a) => [html`${AGE_LABELS[a.age] ?? a.age} ago`, link(search('returns', ageQuery(a)), a.count, `${a.count} returns opened ${AGE_LABELS[a.age] ?? a.age} ago`)]))}</div>`,
  );
}

function dailySection(o: Overview, period: Period): Html {
  const days = o.days.map((d) => d.day);
  const opened = o.days.reduce((sum, d) => sum + d.opened, 0);
  const completed = o.days.reduce((sum, d) => sum + d.completed, 0);
  const rows = o.days.map((d) => [
    html`${d.day}`,
    link(search('returns', `created_at:${d.day}`), d.opened, `${d.opened} opened on ${d.day}`),
    link(search('returns', `closed_at:${d.day}`), d.completed, `${d.completed} completed on ${d.day}`),
  ]);
  const foot = [html`Period`, link(search('returns', within('created_at', period)), opened, `${opened} opened in the period`), link(search('returns', within('closed_at', period)), completed, `${completed} completed in the period`)];
  return section(
    'per-day',
    'Returns opened and completed per day',
    html`${dayChart('chart-days', `Returns opened and completed per day, ${period.firstDay} to ${period.lastDay}`, days, [
      { name: 'Opened', className: 'series-1', values: o.days.map((d) => d.opened) },
      { name: 'Completed', className: 'series-2', values: o.days.map((d) => d.completed) },
    ], false)}
<details class="numbers"><summary>Numbers by day</summary>${figureTable('Returns opened and completed per day', ['Day', 'Opened', 'Completed'], rows, foot)}</details>`,
  );
}

function rateSection(o: Overview, period: Period): Html | '' {
  const rate = o.returnRate;
  if (!rate) return '';
  const returnedQuery = (extra: string) => `${extra ? `${extra} ` : ''}${within('created_at', period)} -status:rejected -status:deleted`;
  const rows = rate.top.map((t) => [
    html`${t.sku}${t.title ? html`<br><span class="hint">${t.title}</span>` : ''}`,
    link(search('orders', `sku:${quoted(t.sku)} ${within('created_at', period)}`), t.unitsOrdered, `${t.unitsOrdered} units of ${t.sku} ordered`),
    link(search('returns', returnedQuery(`sku:${quoted(t.sku)}`)), t.unitsReturned, `${t.unitsReturned} units of ${t.sku} returned`),
    html`${percent(t.rate)}`,
  ]);
  return section(
    'return-rate',
    'Return rate',
    html`<p class="lead"><strong>${percent(rate.rate)}</strong> of the units ordered in the period:
${link(search('returns', returnedQuery('')), rate.unitsReturned, `${rate.unitsReturned} units returned`)} units returned for
${link(search('orders', within('created_at', period)), rate.unitsOrdered, `${rate.unitsOrdered} units ordered`)} ordered (rejected and deleted returns left out).</p>
${rate.top.length > 0 ? barChart('chart-rate', 'The ten SKUs with the highest return rate', rate.top.map((t) => ({ label: t.sku, value: t.rate, shown: percent(t.rate) }))) : ''}
${figureTable('SKUs with the highest return rate', ['SKU', 'Ordered', 'Returned', 'Rate'], rows)}`,
  );
}

function reasonsSection(o: Overview, period: Period): Html {
  const label = (reason: string | null) => reason ?? 'No reason given';
  const rows = o.reasons.map((r) => {
    const q = r.reason === null ? null : `reason:${quoted(r.reason)} ${within('created_at', period)} -status:deleted`;
    return [
      html`${label(r.reason)}`,
      q ? link(search('returns', q), r.units, `${r.units} units returned for ${label(r.reason)}`) : html`${r.units}`,
      q ? link(search('returns', q), r.returns, `${r.returns} returns giving ${label(r.reason)}`) : html`${r.returns}`,
    ];
  });
  return section(
    'reasons',
    'Reasons',
    html`${o.reasons.length > 0 ? barChart('chart-reasons', 'Return reasons ranked by units returned', o.reasons.slice(0, 10).map((r) => ({ label: label(r.reason), value: r.units, shown: String(r.units) }))) : ''}
${figureTable('Reasons ranked by units returned', ['Reason', 'Units', 'Returns'], rows)}`,
  );
}

function moneySection(o: Overview, period: Period): Html {
  const currencies = [...new Set([...o.refunds.map((r) => r.currency), ...(o.fees ?? []).map((f) => f.currency)])].sort();
  const days = o.days.map((d) => d.day);
  const perCurrency = currencies.map((currency) => {
    const refunds = o.refunds.find((r) => r.currency === currency);
    const fees = o.fees?.find((f) => f.currency === currency);
    const amountOn = <T extends { day: string }>(list: T[] | undefined, day: string, pick: (entry: T) => Amount) => {
      const entry = list?.find((d) => d.day === day);
      return entry ? pick(entry).amount : '0';
    };
    const series: Series[] = [
      { name: 'Refunded', className: 'series-1', values: days.map((d) => Number(amountOn(refunds?.days, d, (e) => e.refunded))) },
      { name: 'Store credit', className: 'series-2', values: days.map((d) => Number(amountOn(refunds?.days, d, (e) => e.storeCredit))) },
      ...(o.fees ? [{ name: 'Fees', className: 'series-3', values: days.map((d) => Number(amountOn(fees?.days, d, (e) => e.amount))) }] : []),
    ];
    const columns = ['Day', `Refunded (${currency})`, `Store credit (${currency})`, ...(o.fees ? [`Fees (${currency})`] : [])];
    const completedOn = (day: string, text: string, what: string) => link(search('returns', `closed_at:${day}`), text, `${text} ${currency} ${what} on ${day}`);
    const rows = days
      .filter((d) => series.some((s) => s.values[days.indexOf(d)] !== 0))
      .map((d) => [
        html`${d}`,
        completedOn(d, amountOn(refunds?.days, d, (e) => e.refunded), 'refunded'),
        completedOn(d, amountOn(refunds?.days, d, (e) => e.storeCredit), 'store credit'),
        ...(o.fees ? [link(search('returns', `created_at:${d}`), amountOn(fees?.days, d, (e) => e.amount), `${amountOn(fees?.days, d, (e) => e.amount)} ${currency} fees on ${d}`)] : []),
      ]);
    const total = (text: string, q: string, what: string) => link(search('returns', q), text, `${text} ${currency} ${what} in the period`);
    const foot = [
      html`Period`,
      total(refunds?.refunded.amount ?? '0', within('closed_at', period), 'refunded'),
      total(refunds?.storeCredit.amount ?? '0', within('closed_at', period), 'store credit'),
      ...(o.fees ? [total(fees?.total.amount ?? '0', within('created_at', period), 'fees')] : []),
    ];
    return html`${currencies.length > 1 ? html`<h3>${currency}</h3>` : ''}<p class="lead">${refunds?.refunded.amount ?? '0'} ${currency} refunded, ${refunds?.storeCredit.amount ?? '0'} ${currency} as store credit${o.fees ? html`, ${fees?.total.amount ?? '0'} ${currency} in processing fees` : ''}.</p>
${dayChart(`chart-money-${currency}`, `Refunds, store credit${o.fees ? ' and fees' : ''} per day in ${currency}, ${period.firstDay} to ${period.lastDay}`, days, series, true)}
<details class="numbers"><summary>Amounts by day (${currency})</summary>${figureTable(`Refunds, store credit${o.fees ? ' and fees' : ''} per day in ${currency}`, columns, rows, foot)}</details>`;
  });
  return section(
    'money',
    'Refunds, store credit and fees',
    html`${perCurrency.length > 0 ? perCurrency : html`<p>No refunds, store credit or fees in this period.</p>`}<p class="hint">Refunds and store credit count on the day a return was completed; a fee on the day its return was opened.</p>`,
  );
}

function completionSection(o: Overview, period: Period): Html {
  const { completed, medianSeconds } = o.completion;
  return section(
    'time-to-complete',
    'Time to complete',
    html`<p class="lead">Median time from opening to completion: <strong>${duration(medianSeconds)}</strong>, over
${link(search('returns', within('closed_at', period)), completed, `${completed} returns completed in the period`)} returns completed in the period.</p>`,
  );
}

export async function overviewPage(req: DashboardRequest): Promise<DoorResponse> {
  const period = periodOf(req.query, new Date());
  if ('error' in period) return view(req, 400, 'Overview', periodForm(period, period.error));
  const { returnsOverview: o } = await run<{ returnsOverview: Overview }>(req, ops.returnsOverview, { from: period.from.toISOString(), to: period.to.toISOString() });
  return view(
    req,
    200,
    'Overview',
    html`${periodForm(period)}
<p class="period-shown">${period.firstDay} to ${period.lastDay} (UTC)</p>
${needingActionSection(o)}
${dailySection(o, period)}
${rateSection(o, period)}
${reasonsSection(o, period)}
${moneySection(o, period)}
${completionSection(o, period)}`,
  );
}
