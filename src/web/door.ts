// The web door (/admin, /portal): merchant dashboard and shopper returns portal.
// It owns sessions, CSRF checks, throttling and security headers; every page reads
// and writes through GraphQL operations on the one schema (admin.ts, portal.ts).
import fs from 'node:fs';
import { SCOPES } from '../auth/scopes.ts';
import { checkLogin, endSession, loadSession, sameCsrfToken, SESSION_TTL_MS, startSession } from '../auth/merchantUsers.ts';
import { shopperAuth } from '../auth/shopper.ts';
import { consumeThrottle, releaseThrottle } from '../auth/throttle.ts';
import type { Door, DoorRequest, DoorResponse } from '../http/door.ts';
import { badParameters } from '../http/inputText.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import { dashboard, dashboardRouteOf } from './dashboard/routes.ts';
import { html } from './html.ts';
import { createReturnEvents, LIVE_RETURNS_SCRIPT, LIVE_RETURNS_SCRIPT_PATH, RETURN_EVENTS_PATH } from './liveReturns.ts';
import { clientAddress, cookies, formBody, isHttps, page, randomToken, redirect, sameToken, SECURITY_HEADERS, setCookie } from './http.ts';
import { FLASH_COOKIE, flashCookie, readFlash } from './dashboard/kit.ts';
import { lookupPage, portal } from './portal.ts';

const STYLESHEET = fs.readFileSync(new URL('./app.css', import.meta.url));
const SESSION_COOKIE = 'merchant_session';
/** Double-submit token for forms shown before a session exists (sign-in, portal). */
const FORM_COOKIE = 'form_token';
const LOGIN_WINDOW_MS = 5 * 60_000;

function segmentsOf(path: string): string[] | null {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}

export function createWebDoor(deps: DoorDeps): Door {
  const { db, config, newContext } = deps;
  const returnEvents = createReturnEvents(deps);

  function formToken(request: DoorRequest): { token: string; setCookie?: string } {
    const existing = cookies(request).get(FORM_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return { token: existing };
    const token = randomToken();
    return { token, setCookie: setCookie(request, FORM_COOKIE, token, { path: '/' }) };
  }

  function loginPage(request: DoorRequest, status: number, storeId: string, error?: string): DoorResponse {
    const form = formToken(request);
    const body = html`${error ? html`<div class="error" role="alert">${error}</div>` : ''}
<form method="post" action="/admin/login" class="card"><input type="hidden" name="csrf" value="${form.token}">
<label for="login-store">Store id</label><input type="text" id="login-store" name="store" required value="${storeId}">
<label for="login-email">E-mail</label><input type="email" id="login-email" name="email" required autocomplete="username">
<label for="login-password">Password</label><input type="password" id="login-password" name="password" required autocomplete="current-password">
<button type="submit">Sign in</button></form>`;
    return page(status, { title: 'Sign in to the dashboard', body }, form.setCookie ? { 'set-cookie': form.setCookie } : {});
  }

  async function login(request: DoorRequest): Promise<DoorResponse> {
    const form = formBody(request);
    const storeId = (form.get('store') ?? '').trim();
    const email = (form.get('email') ?? '').trim().toLowerCase();
    if (!sameToken(cookies(request).get(FORM_COOKIE), form.get('csrf'))) return loginPage(request, 403, storeId, 'The form expired. Please try again.');
    // Only failures count: every attempt takes a place in the window, a successful one gives it back.
    const throttleKey = `login:${storeId}:${email}`;
    const attemptedAt = Date.now();
    const throttle = await consumeThrottle(db.prisma, throttleKey, config.webLimits.loginAttempts, LOGIN_WINDOW_MS, attemptedAt);
    if (!throttle.allowed) {
      return { ...loginPage(request, 429, storeId, 'Too many sign-in attempts. Wait a few minutes and try again.'), headers: { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'retry-after': String(throttle.retryAfter) } };
    }
    const user = await checkLogin(db.prisma, storeId, email, form.get('password') ?? '');
    if (!user) return loginPage(request, 401, storeId, 'Wrong store, e-mail or password.');
    await releaseThrottle(db.prisma, throttleKey, LOGIN_WINDOW_MS, attemptedAt);
    const token = await startSession(db.prisma, user.id);
    return redirect('/admin', { 'set-cookie': setCookie(request, SESSION_COOKIE, token, { path: '/', maxAgeS: SESSION_TTL_MS / 1000 }) });
  }

  async function admin(request: DoorRequest, segments: string[]): Promise<DoorResponse> {
    if (segments[0] === 'app.css' && segments.length === 1) {
      return { status: 200, headers: { 'content-type': 'text/css; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' }, body: STYLESHEET };
    }
    if (request.url.pathname === LIVE_RETURNS_SCRIPT_PATH) {
      return { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' }, body: LIVE_RETURNS_SCRIPT };
    }
    const events = request.url.pathname === RETURN_EVENTS_PATH;
    const token = cookies(request).get(SESSION_COOKIE);
    const session = await loadSession(db.prisma, token);
    if (segments[0] === 'login' && segments.length === 1) {
      if (request.method === 'POST') return login(request);
      if (session) return redirect('/admin');
      return loginPage(request, 200, request.url.searchParams.get('store') ?? '');
    }
    if (!session) {
      // An event stream cannot follow a redirect to a form: it is refused.
      if (request.method !== 'GET' || events) return page(401, { title: 'Signed out', body: html`<p><a href="/admin/login">Sign in</a> first.</p>` });
      return redirect('/admin/login');
    }
    const form = formBody(request);
    if (request.method !== 'GET' && request.method !== 'HEAD' && !sameCsrfToken(session.csrfToken, form.get('csrf') ?? undefined)) {
      return page(403, { title: 'Forbidden', body: html`<div class="error" role="alert">The form was not sent from this session. Reload the page and try again.</div>` });
    }
    if (segments[0] === 'logout' && segments.length === 1 && request.method === 'POST') {
      await endSession(db.prisma, token!);
      return redirect('/admin/login', { 'set-cookie': setCookie(request, SESSION_COOKIE, '', { path: '/', maxAgeS: 0 }) });
    }
    const auth = {
      store: session.store,
      client: { id: session.user.id, name: session.user.email },
      scopes: new Set(SCOPES),
      merchantUser: session.user,
    };
    if (events && request.method === 'GET') return returnEvents(request, auth, async () => (await loadSession(db.prisma, token)) !== null);
    const ctx = newContext({ auth, door: 'web', requestId: request.requestId });
    const secure = isHttps(request);
    const flash = request.method === 'GET' ? readFlash(cookies(request).get(FLASH_COOKIE)) : undefined;
    const response = await dashboard({
      ctx,
      session: { storeName: session.store.name, email: session.user.email, csrfToken: session.csrfToken },
      method: request.method,
      segments,
      query: request.url.searchParams,
      form,
      flash,
      secure,
    });
    // The page that showed the message spends it (a response that sets its own flash keeps that one).
    return flash && !response.headers?.['set-cookie'] ? { ...response, headers: { ...response.headers, 'set-cookie': flashCookie(undefined, secure) } } : response;
  }

  async function shopper(request: DoorRequest, segments: string[]): Promise<DoorResponse> {
    const [storeId, ...rest] = segments;
    const form = formToken(request);
    const auth = storeId ? await shopperAuth(db.prisma, storeId, form.token) : null;
    const withCookie = (response: DoorResponse) => (form.setCookie ? { ...response, headers: { ...response.headers, 'set-cookie': form.setCookie } } : response);
    if (!auth) return withCookie(page(404, { title: 'Not found', body: html`<p>There is no such store.</p>` }));
    const ctx = newContext({ auth, door: 'web', requestId: request.requestId });
    const body = formBody(request);
    const portalRequest = { ctx, storeId: auth.store.id, storeName: auth.store.name, method: request.method, segments: rest, query: request.url.searchParams, form: body, csrfToken: form.token };
    if (request.method === 'POST') {
      if (!sameToken(cookies(request).get(FORM_COOKIE), body.get('csrf'))) return withCookie(lookupPage(portalRequest, 403, 'The form expired. Please try again.'));
      const throttle = await consumeThrottle(db.prisma, `portal:${auth.store.id}:${clientAddress(request)}`, config.webLimits.portalLookups, 60_000);
      if (!throttle.allowed) {
        const refused = lookupPage(portalRequest, 429, 'Too many attempts. Wait a minute and try again.');
        return { ...refused, headers: { ...refused.headers, 'retry-after': String(throttle.retryAfter) } };
      }
    }
    return withCookie(await portal(portalRequest));
  }

  async function handle(request: DoorRequest): Promise<DoorResponse> {
    const segments = segmentsOf(request.url.pathname);
    if (!segments) return page(400, { title: 'Bad request', body: html`<p>Malformed address.</p>` });
    const issue = badParameters(Object.fromEntries(segments.entries()), request.url.searchParams) ?? badParameters({}, formBody(request));
    if (issue) return page(400, { title: 'Bad request', body: html`<p>The address or the form holds characters that cannot be accepted (${issue.path}: ${issue.message}).</p>` });
    const [root, ...rest] = segments;
    return root === 'admin' ? admin(request, rest) : shopper(request, rest);
  }

  return {
    name: 'web',
    matches: (pathname) => pathname === '/admin' || pathname.startsWith('/admin/') || pathname === '/portal' || pathname.startsWith('/portal/'),
    reject: (status, message) => page(status, { title: 'Error', body: html`<p>${message}</p>` }),
    // Pages act for a signed-in merchant user or a shopper, never an API client.
    // A dashboard page is labelled by its route in the table (ids left out); the portal's area is label enough.
    routeOf: ({ method, url }) => {
      if (url.pathname !== '/admin' && !url.pathname.startsWith('/admin/')) return '/portal';
      const segments = segmentsOf(url.pathname);
      return segments ? dashboardRouteOf(method, segments.slice(1)) : '/admin';
    },
    handle,
  };
}
