// The v2.2 route table. SOFA does serve the schema as REST, at /v3/rest (src/rest/sofa.ts);
// here, every route is a small hand-written adapter: the request ->
// one GraphQL operation (runOperation) -> the published document's shape, behind the door's
// authentication, store, scope and rate-limit checks. SOFA (sofa-api) was evaluated
// route by route and serves none, because on each it would distort the contract:
// - SOFA generates a route's selection from the schema: every field of the returned
//   type, nested types expanded, nested arguments turned into extra query parameters.
//   For inventoryLevel(id) and inboundShipment(id) that takes in Product.attribute(name:
//   String!), a required variable no REST request carries, so every call fails; it also
//   selects the owner-only `product` and fields behind products_read / locations_read.
//   The REST bodies are snake_case subsets with computed fields (total_available,
//   sku_count ...), so a mapper is needed anyway.
// - Lists (inventory levels, inbound shipments, returns, webhooks, deliveries) take
//   page-size / page-continue and answer X-Page-Next with a named body key; SOFA exposes
//   first / after and the raw connection object.
// - PUT /customers picks 201 or 200 per request, POST /orders answers `{error}` bodies,
//   POST /returns reads Idempotency-Key, webhooks answer 201 and 204: SOFA has one fixed
//   status per route, answers errors as `{errors}` with status 500, and reads variables
//   from a body keyed by argument name (`{"input": {...}}`), not the contract's flat body.
// - GET /customers?email= is the one route whose generated selection equals the
//   contract's body; SOFA would still answer an unknown e-mail with 200 `null`, so it
//   needs the wrapper a hand-written adapter already is, and it costs throughput.
// Measured by bench/rest.ts (SOFA's own operations through SOFA and through a route
// table like this one): SOFA's route handling gave 0.90 of the table's requests/s on
// the cheapest operation; a SOFA-generated returns selection served a page at a third
// of the door's rate (everything selected); the door itself ran at 0.85-1.0 of the
// same operation on /v3/graphql.
import type { Route } from '../../http/routeTable.ts';
import { coverageRoutes } from './coverage.ts';
import { customerRoutes } from './customers.ts';
import { customerPrivacyRoutes } from './customerPrivacy.ts';
import { customerSubscriptionRoutes } from './customerSubscriptions.ts';
import { customEventRoutes } from './customEvents.ts';
import { customOrderRoutes } from './customOrders.ts';
import { docsRoutes } from './docs.ts';
import { inboundShipmentRoutes } from './inboundShipments.ts';
import { inventoryLevelRoutes } from './inventoryLevels.ts';
import { invoiceRoutes } from './invoices.ts';
import { openApiRoute } from './openapi.ts';
import { orderRoutes } from './orders.ts';
import { pageRoutes } from './pages.ts';
import { productBulkUploadRoutes } from './productBulkUpload.ts';
import { orderFulfillmentRoutes } from './orderFulfillments.ts';
import { inventoryItemRoutes } from './inventoryItems.ts';
import { returnRoutes } from './returns.ts';
import { returnsBulkRoutes } from './returnsBulk.ts';
import { returnDetailRoutes } from './returnDetail.ts';
import { returnTagRoutes } from './returnTags.ts';
import { storefrontRoutes } from './storefront.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every v2.2 route, in match order. */
export const restRoutes: Route[] = [
  openApiRoute(() => restRoutes),
  ...docsRoutes,
  ...webhookRoutes,
  ...customerRoutes,
  ...customerPrivacyRoutes,
  ...customerSubscriptionRoutes,
  ...customEventRoutes,
  ...orderRoutes,
  ...customOrderRoutes,
  ...returnRoutes,
  ...returnsBulkRoutes,
  ...returnDetailRoutes,
  ...returnTagRoutes,
  ...inventoryLevelRoutes,
  ...inboundShipmentRoutes,
  ...orderFulfillmentRoutes,
  ...inventoryItemRoutes,
  ...productBulkUploadRoutes,
  ...pageRoutes,
  ...coverageRoutes,
  ...storefrontRoutes,
  ...invoiceRoutes,
];
