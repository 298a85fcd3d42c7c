// The dashboard's route table: every page and form action after sign-in, by method and path
// below /admin. A path's `:name` segments are handed to the page; the path itself names the
// request's route in metrics and logs.
import type { DoorResponse } from '../../http/door.ts';
import { html } from '../html.ts';
import { apiClientPage, createClient, developerPage, revokeClient } from './developer.ts';
import { coveragePage, saveCoverage } from './coverage.ts';
import { overviewPage } from './overview.ts';
import { changeWebhook, createWebhook, replayWebhook, retryDelivery, webhookPage, webhooksPage } from './webhooks.ts';
import { bulkActionPage, returnsPage, startBulkAction } from './returns.ts';
import { processPage, returnAction, returnPage } from './returnPage.ts';
import { orderPage, ordersPage } from './orders.ts';
import { customerPage, customersPage, eraseCustomerData, exportCustomer } from './customers.ts';
import { eraseStoreData, privacySettingsPage } from './privacy.ts';
import { productPage, productsPage } from './products.ts';
import { exportList } from './exports.ts';
import { notFound, PageFailure, view, type DashboardRequest } from './kit.ts';

type Params = Record<string, string>;

interface DashboardRoute {
  method: 'GET' | 'POST';
  path: string;
  handle(req: DashboardRequest, params: Params): Promise<DoorResponse> | DoorResponse;
}

const ROUTES: DashboardRoute[] = [
  { method: 'GET', path: '/', handle: overviewPage },
  { method: 'GET', path: '/returns', handle: returnsPage },
  { method: 'POST', path: '/returns/bulk', handle: startBulkAction },
  { method: 'GET', path: '/returns/bulk/:key', handle: (req, { key }) => bulkActionPage(req, key) },
  { method: 'GET', path: '/returns/:id', handle: (req, { id }) => returnPage(req, id) },
  { method: 'GET', path: '/returns/:id/process', handle: (req, { id }) => processPage(req, id) },
  { method: 'POST', path: '/returns/:id/:action', handle: (req, { id, action }) => returnAction(req, id, action) },
  { method: 'GET', path: '/orders', handle: ordersPage },
  { method: 'GET', path: '/orders/:id', handle: (req, { id }) => orderPage(req, id) },
  { method: 'GET', path: '/customers', handle: customersPage },
  { method: 'GET', path: '/customers/:id', handle: (req, { id }) => customerPage(req, id) },
  { method: 'GET', path: '/customers/:id/export', handle: (req, { id }) => exportCustomer(req, id) },
  { method: 'POST', path: '/customers/:id/erase', handle: (req, { id }) => eraseCustomerData(req, id) },
  { method: 'GET', path: '/products', handle: productsPage },
  { method: 'GET', path: '/products/:id', handle: (req, { id }) => productPage(req, id) },
  { method: 'GET', path: '/exports/:file', handle: (req, { file }) => exportList(req, file) },
  { method: 'GET', path: '/webhooks', handle: (req) => webhooksPage(req) },
  { method: 'POST', path: '/webhooks', handle: createWebhook },
  { method: 'GET', path: '/webhooks/:id', handle: (req, { id }) => webhookPage(req, id) },
  { method: 'POST', path: '/webhooks/:id/replay', handle: (req, { id }) => replayWebhook(req, id) },
  { method: 'POST', path: '/webhooks/:id/:change', handle: (req, { id, change }) => changeWebhook(req, id, change) },
  { method: 'POST', path: '/webhooks/:id/deliveries/:delivery/retry', handle: (req, { id, delivery }) => retryDelivery(req, id, delivery) },
  { method: 'GET', path: '/settings/developer', handle: (req) => developerPage(req) },
  { method: 'POST', path: '/settings/developer/api-clients', handle: createClient },
  { method: 'GET', path: '/settings/developer/api-clients/:id', handle: (req, { id }) => apiClientPage(req, id) },
  { method: 'POST', path: '/settings/developer/api-clients/:id/revoke', handle: (req, { id }) => revokeClient(req, id) },
  { method: 'GET', path: '/settings/coverage', handle: (req) => coveragePage(req) },
  { method: 'POST', path: '/settings/coverage/:which', handle: (req, { which }) => saveCoverage(req, which) },
  { method: 'GET', path: '/settings/privacy', handle: (req) => privacySettingsPage(req) },
  { method: 'POST', path: '/settings/privacy/erase-store', handle: eraseStoreData },
];

const COMPILED = ROUTES.map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }));

/** The route of `segments` (the path below /admin) for `method` (HEAD is GET), with its parameters; none when nothing matches. */
function match(method: string, segments: string[]): { route: DashboardRoute; params: Params } | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const { route, segments: pattern } of COMPILED) {
    if (route.method !== wanted || pattern.length !== segments.length) continue;
    const params: Params = {};
    if (pattern.every((part, i) => (part.startsWith(':') ? ((params[part.slice(1)] = segments[i]), true) : part === segments[i]))) return { route, params };
  }
  return undefined;
}

/** The dashboard route `segments` take, as a label for metrics ("/admin/returns/:id"); unmatched paths share one. */
export function dashboardRouteOf(method: string, segments: string[]): string {
  const found = match(method, segments);
  return found ? `/admin${found.route.path === '/' ? '' : found.route.path}` : '/admin';
}

/** Dashboard pages after sign-in; `segments` is the path below /admin. */
export async function dashboard(req: DashboardRequest): Promise<DoorResponse> {
  const found = match(req.method, req.segments);
  if (!found) return notFound(req);
  try {
    return await found.route.handle(req, found.params);
  } catch (error) {
    if (error instanceof PageFailure) return view(req, error.status, error.status === 404 ? 'Not found' : 'Error', html`<div class="error" role="alert">${error.message}</div>`);
    throw error;
  }
}
