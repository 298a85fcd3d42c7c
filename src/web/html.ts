// Small, escaping HTML templates: every interpolated value is escaped unless it is
// already Html, so a user string can never become markup.
import { maskCsrfToken } from '../auth/merchantUsers.ts';
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | null | undefined | false | Part[];

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new Html(out);
}

export interface Layout {
  title: string;
  body: Html;
  /** Dashboard chrome (navigation, sign-out form) when signed in. */
  dashboard?: { storeName: string; email: string; csrfToken: string };
  /** A script file of this server that enhances the page; the page works without it. */
  script?: string;
}

export function layout({ title, body, dashboard, script }: Layout): Html {
  const nav = dashboard
    ? html`<header class="bar"><strong>${dashboard.storeName}</strong>
<nav aria-label="Dashboard"><a href="/admin">Overview</a> <a href="/admin/returns">Returns</a> <a href="/admin/orders">Orders</a> <a href="/admin/customers">Customers</a> <a href="/admin/products">Products</a> <a href="/admin/webhooks">Webhooks</a> <a href="/admin/settings/developer">Settings → Developer</a> <a href="/admin/settings/coverage">Settings → Coverage</a> <a href="/admin/settings/privacy">Settings → Privacy</a></nav>
<form method="post" action="/admin/logout" class="inline">${csrfField(dashboard.csrfToken)}<span>${dashboard.email}</span> <button type="submit">Sign out</button></form></header>`
    : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="/admin/app.css">${script ? html`<script src="${script}" defer></script>` : ''}</head>
<body><a class="skip" href="#main">Skip to content</a>${nav}<main id="main" tabindex="-1"><h1>${title}</h1>${body}</main></body></html>`;
}

/** The session's CSRF token as a form field, masked afresh each time (maskCsrfToken: no page repeats another's). */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf" value="${maskCsrfToken(token)}">`;
}

export function formatDate(value: unknown): string {
  return typeof value === 'string' ? value.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '';
}

export function money(value: { amount: string; currencyCode?: string; currency?: string } | null | undefined): string {
  if (!value) return '';
  return `${value.amount} ${value.currencyCode ?? value.currency ?? ''}`.trim();
}
