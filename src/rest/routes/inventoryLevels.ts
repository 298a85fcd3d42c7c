// GET /stores/{storeId}/inventory-levels and /inventory-levels/{id}: the legacy
// snake_case shapes its integrations read (money as decimal strings), read
// through the v3 `inventoryLevels` / `inventoryLevel` queries. The product comes from
// `inventoryProduct`, which anyone who can see the level may read (a fulfillment
// service sees other stores' products at its locations); `location` needs
// locations_read in v3, so both routes need inventory_read and locations_read.
import { json } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import type { Scope } from '../../auth/scopes.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { nextPageHeaders, PAGE_PARAMETER_NAMES, PAGINATION_DOC, readPage } from '../pagination.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';
import { documentQueryParameters, parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';

const SCOPES: readonly Scope[] = ['inventory_read', 'locations_read'];

const LEVEL_FIELDS = `
  fragment RestInventoryLevel on LocationInventoryLevel {
    id quantity available committed reserved buildable updatedAt
    inventoryProduct { id title sku }
    location { id name }
  }`;

const LIST = defineOperation(`
  query RestInventoryLevels($first: Int!, $after: String, $locationId: ID, $productId: ID, $sku: String,
                            $updatedAtMin: DateTime, $updatedAtMax: DateTime) {
    inventoryLevels(first: $first, after: $after, locationId: $locationId, productId: $productId, sku: $sku,
                    updatedAtMin: $updatedAtMin, updatedAtMax: $updatedAtMax) {
      pageInfo { hasNextPage endCursor }
      nodes { ...RestInventoryLevel }
    }
  }
  ${LEVEL_FIELDS}`);

const ONE = defineOperation(`
  query RestInventoryLevel($id: ID!) { inventoryLevel(id: $id) { ...RestInventoryLevel createdAt inventoryProduct { upc } } }
  ${LEVEL_FIELDS}`);

interface LevelNode {
  id: string;
  quantity: number;
  available: number;
  committed: number;
  reserved: number;
  buildable: number;
  updatedAt: string;
  inventoryProduct: { id: string; title: string; sku: string | null; upc?: string | null };
  location: { id: string; name: string };
}

interface LevelDetailNode extends LevelNode {
  createdAt: string;
  inventoryProduct: LevelNode['inventoryProduct'] & { upc: string | null };
}

/** The detail adds the product's upc and the level's creation; no external system ids are kept for levels (null). */
function levelDetailJson(node: LevelDetailNode) {
  return { ...levelJson(node), external_ids: null, created_at: node.createdAt };
}

function levelJson(node: LevelNode) {
  return {
    id: node.id,
    product: node.inventoryProduct,
    location: node.location,
    quantity: node.quantity,
    available: node.available,
    committed: node.committed,
    reserved: node.reserved,
    buildable: node.buildable,
    total_available: node.available + node.buildable,
    updated_at: node.updatedAt,
  };
}

const FILTERS: QueryParameter[] = [
  { name: 'location_id', variable: 'locationId', type: 'ID', idPrefix: 'loc_', description: 'Only levels at this location' },
  { name: 'product_id', variable: 'productId', type: 'ID', idPrefix: 'prd_', description: 'Only levels of this product' },
  { name: 'sku', variable: 'sku', type: 'String', description: 'Only levels of the product with this SKU' },
  { name: 'updated_at_min', variable: 'updatedAtMin', type: 'DateTime', description: 'Only levels updated at or after this instant (inclusive)' },
  { name: 'updated_at_max', variable: 'updatedAtMax', type: 'DateTime', description: 'Only levels updated before this instant (exclusive)' },
];

const NAMES = { ...parameterNames(FILTERS), ...PAGE_PARAMETER_NAMES };

const LEVEL_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'product', 'location', 'quantity', 'available', 'committed', 'reserved', 'buildable', 'total_available', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^li_', description: 'Inventory level id' },
    product: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'title', 'sku'],
      properties: { id: { type: 'string', pattern: '^prd_' }, title: { type: 'string' }, sku: { type: ['string', 'null'] } },
    },
    location: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: { type: 'string', pattern: '^loc_', description: 'Usable as `locationId` of order creation' }, name: { type: 'string' } },
    },
    quantity: { type: 'integer', description: 'Total on hand at the location' },
    available: { type: 'integer', description: 'quantity - committed - reserved' },
    committed: { type: 'integer', description: 'Committed to existing orders' },
    reserved: { type: 'integer', description: 'Reserved across all reservation buckets' },
    buildable: { type: 'integer', description: 'Buildable from components' },
    total_available: { type: 'integer', description: 'available + buildable' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const LEVEL_DETAIL_SCHEMA = {
  ...LEVEL_SCHEMA,
  required: [...LEVEL_SCHEMA.required, 'external_ids', 'created_at'],
  properties: {
    ...LEVEL_SCHEMA.properties,
    product: {
      ...LEVEL_SCHEMA.properties.product,
      properties: { ...LEVEL_SCHEMA.properties.product.properties, upc: { type: ['string', 'null'] } },
    },
    external_ids: { type: ['object', 'null'], description: 'External system ids; none are kept for levels' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const SCOPE_NOTE = 'The product is the fulfillment view of the level (readable by anyone who can see the level); `location` needs locations_read.';

async function list(input: RouteInput) {
  const page = readPage(input);
  const filters = readQueryParameters(input.query, FILTERS);
  if (!page.ok || !filters.ok) return validationProblem([...(page.ok ? [] : page.issues), ...(filters.ok ? [] : filters.issues)], input.instance);
  const outcome = await runOperation<{ inventoryLevels: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: LevelNode[] } }>(
    LIST,
    { first: page.first, after: page.after, ...filters.variables },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, NAMES);
  const { nodes, pageInfo } = outcome.data.inventoryLevels;
  return json(200, { inventory_levels: nodes.map(levelJson) }, nextPageHeaders(pageInfo));
}

async function one(input: RouteInput) {
  const notFound = () => problem(404, `inventory level ${input.params.id} not found`, { instance: input.instance });
  if (!/^li_[0-9a-z]+$/.test(input.params.id)) return notFound();
  const outcome = await runOperation<{ inventoryLevel: LevelDetailNode | null }>(ONE, { id: input.params.id }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  if (!outcome.data.inventoryLevel) return notFound();
  return json(200, { inventory_level: levelDetailJson(outcome.data.inventoryLevel) });
}

export const inventoryLevelRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/inventory-levels',
    scopes: SCOPES,
    doc: {
      summary: 'List inventory levels',
      tag: 'Inventory Levels',
      description: `Stock per product and location, newest update first (updated_at desc, ties by id). ${SCOPE_NOTE}`,
      parameters: [...PAGINATION_DOC.parameters, ...documentQueryParameters(FILTERS)],
      responses: {
        '200': {
          description: 'One page of inventory levels',
          headers: { 'X-Page-Next': PAGINATION_DOC.nextHeader },
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['inventory_levels'],
            properties: { inventory_levels: { type: 'array', items: LEVEL_SCHEMA } },
          },
        },
        '400': { description: 'A bad page-size, an altered page-continue cursor or a bad filter value; `errors` names each parameter', problem: true },
      },
    },
    handle: list,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/inventory-levels/{id}',
    scopes: SCOPES,
    doc: {
      summary: 'Get one inventory level',
      tag: 'Inventory Levels',
      description: SCOPE_NOTE,
      responses: {
        '200': {
          description: 'The inventory level',
          schema: { type: 'object', additionalProperties: false, required: ['inventory_level'], properties: { inventory_level: LEVEL_DETAIL_SCHEMA } },
        },
        '404': { description: 'No inventory level with this id is visible to the store', problem: true },
      },
    },
    handle: one,
  },
];
