// POST /stores/{storeId}/products/bulk-upload (the reference's "Bulk upload products"), a
// hand-written adapter over the v3 `productFamiliesBulkUpsert` mutation. Served from the
// reference document, so the route carries no doc. The body's JSON types are checked
// against the document's schema (a malformed body is a 400 and nothing is written); each
// family's values are the domain's to judge, and a refused family is reported in its
// result while the others are written. The upload runs within the request, so its answer
// carries every family's result; a second upload of the store meanwhile is a 409.
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape, withoutNulls } from '../bodyShape.ts';
import { referenceRequestSchema } from '../openapi.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';

const PATH = '/stores/{storeId}/products/bulk-upload';

const UPLOAD = defineOperation(`
  mutation RestBulkUploadProducts($families: [BulkProductFamilyInput!]!) {
    productFamiliesBulkUpsert(families: $families) { status productFamilyId products { id sku } error }
  }`);

type Json = Record<string, unknown>;

interface FamilyResult {
  status: 'CREATED' | 'UPDATED' | 'ERROR';
  productFamilyId: string | null;
  products: { id: string; sku: string }[];
  error: string | null;
}

const image = (value: Json) => ({ url: value.url, altText: value.alt_text });

/** The document's snake_case family (nulls dropped) as the v3 input. */
function familyInput(family: Json): Json {
  return {
    productFamilyId: family.product_family_id,
    externalId: family.external_id,
    title: family.title,
    description: family.description,
    vendor: family.vendor,
    tags: family.tags,
    kind: family.kind,
    options: family.options,
    images: (family.images as Json[] | undefined)?.map(image),
    variants: (family.variants as Json[]).map((variant) => ({
      id: variant.id,
      externalId: variant.external_id,
      title: variant.title,
      sku: variant.sku,
      upc: variant.upc,
      barcodes: variant.barcodes,
      price: variant.price,
      currency: variant.currency,
      weight: variant.weight,
      weightUnit: variant.weight_unit,
      width: variant.width,
      length: variant.length,
      height: variant.height,
      dimensionUnit: variant.dimension_unit,
      hsCode: variant.hs_code,
      originCountry: variant.origin_country,
      optionValues: variant.option_values,
      images: (variant.images as Json[] | undefined)?.map(image),
    })),
  };
}

function result(family: FamilyResult) {
  if (family.status === 'ERROR') return { status: 'error', error: family.error ?? 'the product family was not processed' };
  return { status: family.status.toLowerCase(), product_family_id: family.productFamilyId, products: family.products };
}

const KINDS = ['SELLABLE', 'NON_SELLABLE'];

async function upload(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(referenceRequestSchema('POST', PATH), input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const families = (withoutNulls(shape.value) as { products: Json[] }).products;
  // An enum value GraphQL would refuse for the whole upload, named as the request does.
  const badKind = families.findIndex((family) => family.kind !== undefined && !KINDS.includes(family.kind as string));
  if (badKind >= 0) return validationProblem([{ path: `products.${badKind}.kind`, message: `must be one of ${KINDS.join(', ')}` }], input.instance);
  const outcome = await runOperation<{ productFamiliesBulkUpsert: FamilyResult[] }>(UPLOAD, { families: families.map(familyInput) }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { families: 'products' });
  const results = outcome.data.productFamiliesBulkUpsert.map(result);
  const errors = results.filter((r) => r.status === 'error').length;
  return json(200, { total_count: results.length, processed_count: results.length - errors, error_count: errors, results });
}

export const productBulkUploadRoutes: Route[] = [
  { method: 'POST', path: PATH, scopes: ['products_write'], jsonErrorStatuses: [400, 409], handle: upload },
];
