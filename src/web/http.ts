// HTTP helpers of the web door: cookies, form bodies, security headers, pages.
import crypto from 'node:crypto';
import { header, type DoorRequest, type DoorResponse } from '../http/door.ts';
import { layout, type Layout } from './html.ts';

const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** No inline script or style anywhere; pages load only this server's stylesheet (and, where a page needs one, its script file). */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Portal links carry a token in the query string: never leak it to other sites.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * A page that runs a script file of this server (still no inline script, no eval) which
 * opens an event stream and fetches pages from it; every other page runs no script at all.
 */
const SCRIPTED_PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': `${CONTENT_SECURITY_POLICY}; script-src 'self'; connect-src 'self'`,
};

export function cookies(request: DoorRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header(request, 'cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

export function isHttps(request: DoorRequest): boolean {
  return header(request, 'x-forwarded-proto') === 'https' || request.url.protocol === 'https:';
}

export function setCookie(request: DoorRequest, name: string, value: string, options: { path: string; maxAgeS?: number }): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeS !== undefined) parts.push(`Max-Age=${options.maxAgeS}`);
  if (isHttps(request)) parts.push('Secure');
  return parts.join('; ');
}

export function formBody(request: DoorRequest): URLSearchParams {
  const type = header(request, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return new URLSearchParams();
  return new URLSearchParams(request.body.toString('utf8'));
}

export function page(status: number, view: Layout, headers: Record<string, string> = {}): DoorResponse {
  return { status, headers: { ...SECURITY_HEADERS, ...(view.script ? SCRIPTED_PAGE_HEADERS : {}), 'content-type': 'text/html; charset=utf-8', ...headers }, body: layout(view).value };
}

export function redirect(location: string, headers: Record<string, string> = {}): DoorResponse {
  return { status: 303, headers: { ...SECURITY_HEADERS, location, ...headers } };
}

export function randomToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/** Constant-time equality of two short strings. */
export function sameToken(a: string | undefined | null, b: string | undefined | null): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

export function clientAddress(request: DoorRequest): string {
  return (header(request, 'x-forwarded-for') ?? '').split(',')[0].trim() || 'direct';
}
