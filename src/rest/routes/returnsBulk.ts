// POST /stores/{storeId}/returns/bulk (the reference's "Import returns"), a hand-written
// adapter over the v3 `returnsImport` mutation. Served from the reference document, so the
// route carries no doc. A body of the wrong JSON shape (or more than 100 returns) is a 400
// and nothing is written; each return's values are the domain's to judge, and a refused
// return is reported in its result (by index) while the others are created.
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape, withoutNulls } from '../bodyShape.ts';
import { referenceRequestSchema } from '../openapi.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';

const PATH = '/stores/{storeId}/returns/bulk';

const IMPORT = defineOperation(`
  mutation RestImportReturns($returns: [ImportReturnInput!]!) {
    returnsImport(returns: $returns) { returnId error }
  }`);

type Json = Record<string, unknown>;

/** The document's return (nulls dropped) as the v3 input: its `products` are the items. */
function importInput({ products, ...rest }: Json): Json {
  return { ...rest, items: products };
}

async function importReturns(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(referenceRequestSchema('POST', PATH), input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const returns = (withoutNulls(shape.value) as { returns: Json[] }).returns;
  const outcome = await runOperation<{ returnsImport: { returnId: string | null; error: string | null }[] }>(
    IMPORT,
    { returns: returns.map(importInput) },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const results = outcome.data.returnsImport.map((result, index) =>
    result.returnId ? { status: 'created', index, returnId: result.returnId } : { status: 'error', index, error: result.error ?? 'the return was not imported' },
  );
  const errors = results.filter((result) => result.status === 'error').length;
  return json(200, { totalCount: results.length, processedCount: results.length - errors, errorCount: errors, results });
}

export const returnsBulkRoutes: Route[] = [
  { method: 'POST', path: PATH, scopes: ['returns_write'], jsonErrorStatuses: [400], handle: importReturns },
];
