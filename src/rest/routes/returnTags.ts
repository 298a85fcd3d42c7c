// Return tags as the reference document serves them: GET /stores/{storeId}/return-tags,
// PUT|DELETE /stores/{storeId}/return-tags/{name}. PUT upserts by name (newName renames,
// cascading to returns); DELETE strips the tag from every return.
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';

const TAG_FIELDS = 'name pillTheme source numericId';
const LIST = defineOperation(`query RestReturnTags { returnTags { ${TAG_FIELDS} } }`);
const UPSERT = defineOperation(`
  mutation RestUpsertReturnTag($name: String!, $pillTheme: String!, $newName: String) {
    returnTagUpsert(name: $name, pillTheme: $pillTheme, newName: $newName) { ${TAG_FIELDS} }
  }`);
const DELETE = defineOperation(`mutation RestDeleteReturnTag($name: String!) { returnTagDelete(name: $name) }`);

interface TagNode {
  name: string;
  pillTheme: string;
  source: string;
  numericId: number;
}

/** The reference's return-tag.schema. */
const restTag = (tag: TagNode) => ({ name: tag.name, kind: 'return', pillTheme: tag.pillTheme, source: tag.source, numericId: tag.numericId });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

async function list(input: RouteInput): Promise<DoorResponse> {
  const outcome = await runOperation<{ returnTags: TagNode[] }>(LIST, {}, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return json(200, { tags: outcome.data.returnTags.map(restTag) });
}

async function upsert(input: RouteInput): Promise<DoorResponse> {
  const body = input.body;
  if (!isObject(body)) return validationProblem([{ path: '', message: 'the body must be a JSON object' }], input.instance);
  const issues = [
    ...(typeof body.pillTheme === 'string' ? [] : [{ path: 'pillTheme', message: body.pillTheme === undefined ? 'is required' : 'must be a string' }]),
    ...(body.newName == null || typeof body.newName === 'string' ? [] : [{ path: 'newName', message: 'must be a string' }]),
  ];
  if (issues.length > 0) return validationProblem(issues, input.instance);
  const outcome = await runOperation<{ returnTagUpsert: TagNode }>(
    UPSERT,
    { name: input.params.name, pillTheme: body.pillTheme, newName: body.newName ?? null },
    input.ctx,
  );
  if (!outcome.ok) {
    // The reference answers every refused rename (absent source, taken target) with 400.
    const answer = problemFromOutcome(outcome, input.instance);
    return answer.status === 404 || answer.status === 409 ? problem(400, outcome.error.message, { instance: input.instance, errors: outcome.error.issues }) : answer;
  }
  return json(200, { tag: restTag(outcome.data.returnTagUpsert) });
}

async function remove(input: RouteInput): Promise<DoorResponse> {
  const outcome = await runOperation(DELETE, { name: input.params.name }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return json(200, { success: true });
}

export const returnTagRoutes: Route[] = [
  { method: 'GET', path: '/stores/{storeId}/return-tags', scopes: ['returns_read'], handle: list },
  { method: 'PUT', path: '/stores/{storeId}/return-tags/{name}', scopes: ['returns_write'], handle: upsert },
  { method: 'DELETE', path: '/stores/{storeId}/return-tags/{name}', scopes: ['returns_write'], handle: remove },
];
