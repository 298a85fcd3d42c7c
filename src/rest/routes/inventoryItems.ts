// GET /stores/{storeId}/inventory-items and GET .../{inventoryItemId}: the reference
// document's Inventory Items group, adapters over the v3 inventoryItems /
// inventoryItem queries. Only products with units on hand are items; newest update first.
import { json } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { nextPageHeaders, PAGE_PARAMETER_NAMES, PAGINATION_DOC, readPage } from '../pagination.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';
import { documentQueryParameters, parameterNames, readQueryParameters, type QueryParameter } from '../queryParameters.ts';

const ITEM_FIELDS = `
  fragment RestInventoryItem on InventoryItem {
    id sku name kind quantity locations { locationId locationName quantity } createdAt updatedAt
  }`;

const LIST = defineOperation(`
  query RestInventoryItems($first: Int!, $after: String, $locationId: ID, $kind: InventoryItemKind) {
    inventoryItems(first: $first, after: $after, locationId: $locationId, kind: $kind) {
      pageInfo { hasNextPage endCursor }
      nodes { ...RestInventoryItem }
    }
  }
  ${ITEM_FIELDS}`);

const ONE = defineOperation(`
  query RestInventoryItem($id: ID!) { inventoryItem(id: $id) { ...RestInventoryItem } }
  ${ITEM_FIELDS}`);

interface ItemNode {
  id: string;
  sku: string | null;
  name: string;
  kind: string;
  quantity: number;
  locations: { locationId: string; locationName: string; quantity: number }[];
  createdAt: string;
  updatedAt: string;
}

function itemJson(node: ItemNode) {
  return {
    id: node.id,
    sku: node.sku,
    name: node.name,
    kind: node.kind,
    quantity: node.quantity,
    locations: node.locations.map((l) => ({ location_id: l.locationId, location_name: l.locationName, quantity: l.quantity })),
    created_at: node.createdAt,
    updated_at: node.updatedAt,
  };
}

const FILTERS: QueryParameter[] = [
  { name: 'location_id', variable: 'locationId', type: 'ID', idPrefix: 'loc_', description: 'Only items on hand at this location; quantity is then the quantity there' },
  { name: 'kind', variable: 'kind', type: 'InventoryItemKind', description: 'Every item here is a PRODUCT' },
];
const NAMES = { ...parameterNames(FILTERS), ...PAGE_PARAMETER_NAMES };

const ITEM_SCHEMA = {
  type: 'object',
  required: ['id', 'sku', 'name', 'kind', 'quantity', 'locations', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^prd_' },
    sku: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
    kind: { type: 'string', enum: ['PRODUCT'] },
    quantity: { type: 'integer' },
    locations: {
      type: 'array',
      items: { type: 'object', required: ['location_id', 'location_name', 'quantity'], properties: { location_id: { type: 'string' }, location_name: { type: 'string' }, quantity: { type: 'integer' } } },
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

async function list(input: RouteInput) {
  const page = readPage(input);
  const filters = readQueryParameters(input.query, FILTERS);
  if (!page.ok || !filters.ok) return validationProblem([...(page.ok ? [] : page.issues), ...(filters.ok ? [] : filters.issues)], input.instance);
  const outcome = await runOperation<{ inventoryItems: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ItemNode[] } }>(
    LIST,
    { first: page.first, after: page.after, ...filters.variables },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, NAMES);
  const { nodes, pageInfo } = outcome.data.inventoryItems;
  return json(200, { inventory_items: nodes.map(itemJson) }, nextPageHeaders(pageInfo));
}

async function one(input: RouteInput) {
  const notFound = () => problem(404, `inventory item ${input.params.inventoryItemId} not found or not in stock`, { instance: input.instance });
  if (!/^prd_[0-9a-z]+$/.test(input.params.inventoryItemId)) return notFound();
  const outcome = await runOperation<{ inventoryItem: ItemNode | null }>(ONE, { id: input.params.inventoryItemId }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  if (!outcome.data.inventoryItem) return notFound();
  return json(200, { inventory_item: itemJson(outcome.data.inventoryItem) });
}

export const inventoryItemRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/inventory-items',
    scopes: ['inventory_read'],
    doc: {
      summary: 'List Inventory Items',
      tag: 'Inventory Items',
      description: 'Products with units on hand, most recently updated first (ties by id).',
      parameters: [...PAGINATION_DOC.parameters, ...documentQueryParameters(FILTERS)],
      responses: {
        '200': {
          description: 'One page of inventory items',
          headers: { 'X-Page-Next': PAGINATION_DOC.nextHeader },
          schema: { type: 'object', required: ['inventory_items'], properties: { inventory_items: { type: 'array', items: ITEM_SCHEMA } } },
        },
        '400': { description: 'A bad page-size, cursor or filter', problem: true },
      },
    },
    handle: list,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/inventory-items/{inventoryItemId}',
    scopes: ['inventory_read'],
    doc: {
      summary: 'Get Inventory Item',
      tag: 'Inventory Items',
      responses: {
        '200': { description: 'The inventory item', schema: { type: 'object', required: ['inventory_item'], properties: { inventory_item: ITEM_SCHEMA } } },
        '404': { description: 'No such product in the store, or none on hand', problem: true },
      },
    },
    handle: one,
  },
];
