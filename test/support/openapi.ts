// Checks a real REST response against the OpenAPI document the service serves:
// the status must be documented for the operation, the media type must match, the
// body must validate against the JSON Schema (Ajv, draft 2020-12, with formats), and
// the headers must be the documented ones. Any REST test can call it:
//
//   const res = await call(server, 'GET', `/v2.2/stores/${storeId}/inventory-levels`, { secret });
//   expectValidRestResponse('GET', `/v2.2/stores/${storeId}/inventory-levels`, res);
import { buildOpenApiDocument, PROBLEM_MEDIA_TYPE, type OpenApiDocument, type OpenApiOperation } from '../../src/rest/openapi.ts';
import { REST_PREFIX } from '../../src/rest/door.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { CheckedDocument, documentedResponseProblems, formatAjvErrors, mediaTypeOf, type ResponseLike } from './documentCheck.ts';
import { referenceResponseProblems } from './reference.ts';

let cached: { document: OpenApiDocument; checked: CheckedDocument } | undefined;

// The document linter (test/rest/openapi.test.ts) compiles every schema strictly once; here they are read leniently.
function state() {
  if (!cached) {
    const document = buildOpenApiDocument(restRoutes);
    cached = { document, checked: new CheckedDocument(document, 'https://service.invalid/v2.2/openapi.json') };
  }
  return cached;
}

export function openApiDocument(): OpenApiDocument {
  return state().document;
}

const validatorAt = (pointer: string[]) => state().checked.validatorAt(pointer);

/** The documented path template a concrete path (or a template) belongs to; literal segments win over parameters. */
export function findPathTemplate(pathTemplateOrUrl: string): string | undefined {
  const withoutOrigin = pathTemplateOrUrl.replace(/^https?:\/\/[^/]+/, '');
  const path = withoutOrigin.split('?')[0].replace(new RegExp(`^${REST_PREFIX.replace('.', '\\.')}(?=/)`), '');
  const templates = Object.keys(state().document.paths);
  if (templates.includes(path)) return path;
  const candidates = templates.filter((template) => {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
    return new RegExp(`^${pattern}/?$`).test(path);
  });
  const literalCount = (template: string) => template.split('/').filter((s) => s && !s.startsWith('{')).length;
  return candidates.sort((a, b) => literalCount(b) - literalCount(a))[0];
}

/**
 * No operation exists for an unknown path or a wrong method, so the door's own answers are checked
 * here: a 404 problem, or a 405 problem whose Allow header lists exactly the documented methods.
 */
function undocumentedRouteProblems(method: string, path: string, response: ResponseLike): string[] {
  // A path item also holds path-level `parameters` (reference operations): only methods count.
  const methods = path in state().document.paths
    ? Object.keys(state().document.paths[path]).filter((key) => key !== 'parameters').map((m) => m.toUpperCase())
    : [];
  const expected = methods.length > 0 ? 405 : 404;
  const where = `${method} ${path} -> ${response.status}`;
  if (response.status !== expected) return [`${where}: ${method} ${path} is not documented, so only ${expected} may answer it`];
  const problems: string[] = [];
  if (expected === 405) {
    const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    if (allow.sort().join(',') !== [...methods].sort().join(',')) problems.push(`${where}: Allow is "${allow.join(', ')}", documented methods are ${methods.join(', ')}`);
  }
  if (mediaTypeOf(response.headers) !== PROBLEM_MEDIA_TYPE) problems.push(`${where}: content-type is not ${PROBLEM_MEDIA_TYPE}`);
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [...problems, `${where}: body is not JSON: ${response.text.slice(0, 200)}`];
  }
  const validate = validatorAt(['components', 'schemas', 'Problem']);
  if (!validate(body)) problems.push(`${where}: body is not a problem: ${formatAjvErrors(validate)}`);
  return problems;
}

/** Every way the response departs from the document; empty when it conforms. */
export function restResponseProblems(method: string, pathTemplateOrUrl: string, response: ResponseLike): string[] {
  const { document } = state();
  const template = findPathTemplate(pathTemplateOrUrl);
  const verb = (method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase()) as keyof (typeof document.paths)[string];
  const operation: OpenApiOperation | undefined = template ? document.paths[template][verb] : undefined;
  if (!template || !operation) return undocumentedRouteProblems(method, template ?? pathTemplateOrUrl, response);
  // A reference operation is served as the reference document describes it: its checker rules.
  if (!operation['x-extension']) return referenceResponseProblems(method, pathTemplateOrUrl, response) ?? [`${method} ${template} is not in the reference`];

  const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) => key in operation.responses);
  if (!statusKey) return [`status ${response.status} is not documented for ${method} ${template}`];
  const documented = operation.responses[statusKey];
  const where = `${method} ${template} -> ${response.status}`;
  const base = ['paths', template, verb, 'responses', statusKey];
  const headers = documented.headers ?? {};
  const problems = documentedResponseProblems({
    document: state().checked,
    where,
    method,
    response,
    headerNames: Object.keys(headers),
    header: (name) => ({ doc: headers[name], schemaPointer: [...base, 'headers', name, 'schema'] }),
    content: documented.content,
    bodyPointer: (mediaType) => [...base, 'content', mediaType, 'schema'],
    schemaName: 'the documented schema',
  });
  // Our own headers may only be sent where the document says so.
  const documentedHeaders = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const name of ['x-page-next', 'retry-after', 'allow', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'ratelimit-policy', 'ratelimit']) {
    if (response.headers.get(name) !== null && !documentedHeaders.has(name)) problems.push(`${where}: header ${name} is sent but not documented`);
  }
  return problems;
}

/** Throws with every departure from the OpenAPI document. */
export function expectValidRestResponse(method: string, pathTemplateOrUrl: string, response: ResponseLike): void {
  const problems = restResponseProblems(method, pathTemplateOrUrl, response);
  if (problems.length > 0) {
    throw new Error(`response does not conform to /v2.2/openapi.json:\n  ${problems.join('\n  ')}\nbody: ${response.text.slice(0, 500)}`);
  }
}
