// The reference document's two page links: both answer 302 (no body) to the pages
// the web door serves. The portal link's token is checked by the portal itself.
import type { Route } from '../../http/routeTable.ts';

/** Longer than any id or signed token this service makes: never copied into a Location header, which a client must still be able to read. */
const MAX_LINK_PART = 512;

function found(location: string) {
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
}

export const pageRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/admin',
    scopes: [],
    public: true,
    doc: {
      summary: 'Open the merchant dashboard',
      tag: 'Merchant Admin',
      description: "Redirects to the dashboard's sign-in page for the store (or the dashboard when already signed in).",
      responses: { '302': { description: 'Redirect to the merchant dashboard', headers: { Location: { description: 'The dashboard page', schema: { type: 'string' } } } } },
    },
    async handle({ params }) {
      if (params.storeId.length > MAX_LINK_PART) return found('/admin/login');
      return found(`/admin/login?${new URLSearchParams({ store: params.storeId }).toString()}`);
    },
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/customer-portal',
    scopes: [],
    public: true,
    doc: {
      summary: 'Open the shopper returns portal',
      tag: 'Customer Portal',
      description:
        "With `token` (Order.customerPortalToken on v3) and `order_id`, redirects to that order's return page; without them, to the portal's order lookup.",
      parameters: [
        { name: 'token', in: 'query', description: 'Signed link token of the order', schema: { type: 'string' } },
        { name: 'order_id', in: 'query', description: 'Order id (ord_)', schema: { type: 'string' } },
      ],
      responses: { '302': { description: 'Redirect to the shopper portal', headers: { Location: { description: 'The portal page', schema: { type: 'string' } } } } },
    },
    async handle({ params, query }) {
      if (params.storeId.length > MAX_LINK_PART) return found('/portal');
      const base = `/portal/${encodeURIComponent(params.storeId)}`;
      const token = query.get('token');
      const orderId = query.get('order_id');
      if (!token || !orderId || token.length > MAX_LINK_PART || orderId.length > MAX_LINK_PART) return found(base);
      return found(`${base}/orders/${encodeURIComponent(orderId)}?${new URLSearchParams({ token }).toString()}`);
    },
  },
];
