// GET /stores/{storeId}/inbound-shipments and /inbound-shipments/{id}: the legacy
// snake_case shapes its integrations read (money as decimal strings), read
// through the v3 `inboundShipments` / `inboundShipment` queries, newest update first.
// Scopes follow the fields selected: the queries, `items` and `purchaseOrders` need
// inventory_read, `location` locations_read and an item's `product` products_read.
import { json } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { MONEY_SCHEMA } from '../schemas.ts';
import type { Scope } from '../../auth/scopes.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { nextPageHeaders, MAX_PAGE_SIZE, PAGE_PARAMETER_NAMES, PAGINATION_DOC, readPage } from '../pagination.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';
import { documentQueryParameters, parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';

const SCOPES: readonly Scope[] = ['inventory_read', 'locations_read', 'products_read'];

// Nested lists are bounded by the door's page-size limit; a shipment's line count is
// far below it in practice, and sku_count / item_count always cover every line.
// The reference document's shipment status has no CANCELLED: the REST door lists only
// the statuses it names and answers a cancelled shipment as not found (v3 shows them all).
const REST_STATUSES = ['PENDING', 'IN_TRANSIT', 'PARTIALLY_RECEIVED', 'RECEIVED'] as const;

const SHIPMENT_FIELDS = `
  fragment RestInboundShipment on InboundShipment {
    id shipmentId status carrier trackingNumber trackingUrl estimatedArrivalDate actualArrivalDate
    freightType paymentTerms currency freightCost { amount currency } dutyCost { amount currency }
    location { id name }
    items(first: ${MAX_PAGE_SIZE}) { nodes { id quantity receivedQuantity damagedQuantity product { id title sku } } }
    skuCount itemCount receivedCount createdAt updatedAt
  }`;

const LIST = defineOperation(`
  query RestInboundShipments($first: Int!, $after: String, $status: InboundShipmentStatus, $locationId: ID,
                             $createdAtMin: DateTime, $createdAtMax: DateTime) {
    inboundShipments(first: $first, after: $after, orderBy: UPDATED_AT, status: $status, statuses: [${REST_STATUSES.join(', ')}], locationId: $locationId,
                     createdAtMin: $createdAtMin, createdAtMax: $createdAtMax) {
      pageInfo { hasNextPage endCursor }
      nodes { ...RestInboundShipment }
    }
  }
  ${SHIPMENT_FIELDS}`);

const ONE = defineOperation(`
  query RestInboundShipment($id: ID!) {
    inboundShipment(id: $id) {
      ...RestInboundShipment
      purchaseOrders(first: ${MAX_PAGE_SIZE}) { nodes { id name } }
    }
  }
  ${SHIPMENT_FIELDS}`);

interface Money {
  amount: string;
  currency: string;
}

interface ShipmentNode {
  id: string;
  shipmentId: string | null;
  status: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  estimatedArrivalDate: string | null;
  actualArrivalDate: string | null;
  freightType: string | null;
  paymentTerms: string | null;
  currency: string;
  freightCost: Money | null;
  dutyCost: Money | null;
  location: { id: string; name: string };
  items: { nodes: { id: string; quantity: number; receivedQuantity: number; damagedQuantity: number; product: { id: string; title: string; sku: string | null } }[] };
  skuCount: number;
  itemCount: number;
  receivedCount: number;
  createdAt: string;
  updatedAt: string;
  purchaseOrders?: { nodes: { id: string; name: string }[] };
}

/**
 * Units of a line that did not arrive: only a RECEIVED shipment is closed, so only its
 * lines can miss units; an open one may still receive them.
 */
function missingQuantity(status: string, item: ShipmentNode['items']['nodes'][number]): number {
  return status === 'RECEIVED' ? Math.max(0, item.quantity - item.receivedQuantity - item.damagedQuantity) : 0;
}

/** The reference's costs are never null: a cost not recorded is zero in the shipment's currency. */
const cost = (value: Money | null, currency: string): Money => value ?? { amount: '0', currency };

function shipmentJson(node: ShipmentNode) {
  return {
    id: node.id,
    shipment_id: node.shipmentId,
    status: node.status,
    location: node.location,
    carrier: node.carrier,
    tracking_number: node.trackingNumber,
    tracking_url: node.trackingUrl,
    estimated_arrival_date: node.estimatedArrivalDate,
    actual_arrival_date: node.actualArrivalDate,
    freight_type: node.freightType,
    payment_terms: node.paymentTerms,
    freight_cost: cost(node.freightCost, node.currency),
    duty_cost: cost(node.dutyCost, node.currency),
    items: node.items.nodes.map((item) => ({
      id: item.id,
      product: item.product,
      quantity: item.quantity,
      received_quantity: item.receivedQuantity,
      damaged_quantity: item.damagedQuantity,
      missing_quantity: missingQuantity(node.status, item),
    })),
    sku_count: node.skuCount,
    item_count: node.itemCount,
    received_count: node.receivedCount,
    created_at: node.createdAt,
    updated_at: node.updatedAt,
  };
}

/** The detail adds the purchase orders and totals; this service keeps no volume, transfer orders or files. */
function shipmentDetailJson(node: ShipmentNode) {
  const items = node.items.nodes;
  return {
    ...shipmentJson(node),
    purchase_orders: node.purchaseOrders?.nodes ?? [],
    custom_volume_cubic_meters: null,
    transfer_orders: [],
    files: [],
    damaged_count: items.reduce((sum, item) => sum + item.damagedQuantity, 0),
    missing_count: items.reduce((sum, item) => sum + missingQuantity(node.status, item), 0),
  };
}

const FILTERS: QueryParameter[] = [
  { name: 'status', variable: 'status', type: 'InboundShipmentStatus', allowed: REST_STATUSES, description: 'Only shipments with this status' },
  { name: 'location_id', variable: 'locationId', type: 'ID', idPrefix: 'loc_', description: 'Only shipments to this destination location' },
  { name: 'created_at_min', variable: 'createdAtMin', type: 'DateTime', description: 'Only shipments created at or after this instant (inclusive)' },
  { name: 'created_at_max', variable: 'createdAtMax', type: 'DateTime', description: 'Only shipments created before this instant (exclusive)' },
];

const NAMES = { ...parameterNames(FILTERS), ...PAGE_PARAMETER_NAMES };

const NULLABLE_STRING = { type: ['string', 'null'] };
/** A money object closed to other members, its keys in the order the document has always listed them. */
const COST_SCHEMA = { type: 'object', additionalProperties: false, required: MONEY_SCHEMA.required, properties: MONEY_SCHEMA.properties };
const NULLABLE_DATE = { type: ['string', 'null'], format: 'date' };

const SHIPMENT_PROPERTIES = {
  id: { type: 'string', pattern: '^inb_' },
  shipment_id: { ...NULLABLE_STRING, description: "The carrier's shipment identifier" },
  status: { type: 'string', enum: [...REST_STATUSES] },
  location: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name'],
    properties: { id: { type: 'string', pattern: '^loc_' }, name: { type: 'string' } },
    description: 'Destination',
  },
  carrier: NULLABLE_STRING,
  tracking_number: NULLABLE_STRING,
  tracking_url: NULLABLE_STRING,
  estimated_arrival_date: NULLABLE_DATE,
  actual_arrival_date: NULLABLE_DATE,
  freight_type: NULLABLE_STRING,
  payment_terms: NULLABLE_STRING,
  freight_cost: COST_SCHEMA,
  duty_cost: COST_SCHEMA,
  items: {
    type: 'array',
    description: `The shipment's lines (up to ${MAX_PAGE_SIZE})`,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'product', 'quantity', 'received_quantity', 'damaged_quantity', 'missing_quantity'],
      properties: {
        id: { type: 'string', pattern: '^isp_' },
        product: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'title', 'sku'],
          properties: { id: { type: 'string', pattern: '^prd_' }, title: { type: 'string' }, sku: NULLABLE_STRING },
        },
        quantity: { type: 'integer', minimum: 0 },
        received_quantity: { type: 'integer', minimum: 0 },
        damaged_quantity: { type: 'integer', minimum: 0 },
        missing_quantity: { type: 'integer', minimum: 0, description: 'Units that did not arrive (a RECEIVED shipment only)' },
      },
    },
  },
  sku_count: { type: 'integer', minimum: 0, description: 'Number of distinct products' },
  item_count: { type: 'integer', minimum: 0, description: 'Units shipped, over every line' },
  received_count: { type: 'integer', minimum: 0, description: 'Units received so far, over every line' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
};

const SHIPMENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(SHIPMENT_PROPERTIES),
  properties: SHIPMENT_PROPERTIES,
};

const SHIPMENT_WITH_ORDERS_SCHEMA = {
  ...SHIPMENT_SCHEMA,
  required: [...SHIPMENT_SCHEMA.required, 'purchase_orders', 'custom_volume_cubic_meters', 'transfer_orders', 'files', 'damaged_count', 'missing_count'],
  properties: {
    ...SHIPMENT_PROPERTIES,
    custom_volume_cubic_meters: { type: ['number', 'null'], description: 'Not kept by this service: null' },
    transfer_orders: { type: 'array', maxItems: 0, description: 'This service has no transfer orders: always empty' },
    files: { type: 'array', maxItems: 0, description: 'This service keeps no shipment files: always empty' },
    damaged_count: { type: 'integer', minimum: 0 },
    missing_count: { type: 'integer', minimum: 0 },
    purchase_orders: {
      type: 'array',
      description: 'Purchase orders the shipment fulfills',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name'],
        properties: { id: { type: 'string', pattern: '^po_' }, name: { type: 'string' } },
      },
    },
  },
};

async function list(input: RouteInput) {
  const page = readPage(input);
  const filters = readQueryParameters(input.query, FILTERS);
  if (!page.ok || !filters.ok) return validationProblem([...(page.ok ? [] : page.issues), ...(filters.ok ? [] : filters.issues)], input.instance);
  const outcome = await runOperation<{ inboundShipments: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ShipmentNode[] } }>(
    LIST,
    { first: page.first, after: page.after, ...filters.variables },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, NAMES);
  const { nodes, pageInfo } = outcome.data.inboundShipments;
  return json(200, { inbound_shipments: nodes.map(shipmentJson) }, nextPageHeaders(pageInfo));
}

async function one(input: RouteInput) {
  const notFound = () => problem(404, `inbound shipment ${input.params.id} not found`, { instance: input.instance });
  if (!/^inb_[0-9a-z]+$/.test(input.params.id)) return notFound();
  const outcome = await runOperation<{ inboundShipment: ShipmentNode | null }>(ONE, { id: input.params.id }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  if (!outcome.data.inboundShipment) return notFound();
  if (!(REST_STATUSES as readonly string[]).includes(outcome.data.inboundShipment.status)) return notFound();
  return json(200, { inbound_shipment: shipmentDetailJson(outcome.data.inboundShipment) });
}

export const inboundShipmentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/inbound-shipments',
    scopes: SCOPES,
    doc: {
      summary: 'List inbound shipments',
      tag: 'Inbound Shipments',
      description: 'Shipments on their way to (or received at) the store\'s locations, newest update first (updated_at desc, ties by id).',
      parameters: [...PAGINATION_DOC.parameters, ...documentQueryParameters(FILTERS)],
      responses: {
        '200': {
          description: 'One page of inbound shipments',
          headers: { 'X-Page-Next': PAGINATION_DOC.nextHeader },
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['inbound_shipments'],
            properties: { inbound_shipments: { type: 'array', items: SHIPMENT_SCHEMA } },
          },
        },
        '400': { description: 'A bad page-size, an altered page-continue cursor or a bad filter value; `errors` names each parameter', problem: true },
      },
    },
    handle: list,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/inbound-shipments/{id}',
    scopes: SCOPES,
    doc: {
      summary: 'Get one inbound shipment',
      tag: 'Inbound Shipments',
      description: 'The shipment with the purchase orders it fulfills.',
      responses: {
        '200': {
          description: 'The inbound shipment',
          schema: { type: 'object', additionalProperties: false, required: ['inbound_shipment'], properties: { inbound_shipment: SHIPMENT_WITH_ORDERS_SCHEMA } },
        },
        '404': { description: 'No inbound shipment with this id belongs to the store', problem: true },
      },
    },
    handle: one,
  },
];
