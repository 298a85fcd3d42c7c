// Checks a real REST response against the OpenAPI document the service serves:
// the status must be documented for the operation, the media type must match, the
// body must validate against the JSON Schema (Ajv, draft 2020-12, with formats), and
// the headers must be the documented ones. Any REST test can call it:
//
//   const res = await call(server, 'GET', `/v2.2/stores/${storeId}/inventory-levels`, { secret });
//   expectValidRestResponse('GET', `/v2.2/stores/${storeId}/inventory-levels`, res);
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument, PROBLEM_MEDIA_TYPE, type OpenApiDocument, type OpenApiOperation } from '../../src/rest/openapi.ts';
import { REST_PREFIX } from '../../src/rest/door.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';

// ajv-formats is CommonJS; depending on the loader its default import is the plugin or its module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

const DOCUMENT_ID = 'https://service.invalid/v2.2/openapi.json';

/** The part of a response the checks read; `call()` from ./server.ts returns it. */
export interface RestResponseLike {
  status: number;
  headers: Headers;
  text: string;
}

let cached: { document: OpenApiDocument; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function state() {
  if (!cached) {
    const document = buildOpenApiDocument(restRoutes);
    // strict: false because OpenAPI schemas may carry annotations Ajv does not know (example, externalDocs ...);
    // the document linter (test/rest/openapi.test.ts) compiles every schema strictly once.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    ajv.addSchema(document, DOCUMENT_ID);
    cached = { document, ajv, validators: new Map() };
  }
  return cached;
}

export function openApiDocument(): OpenApiDocument {
  return state().document;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function validatorAt(pointer: string[]): ValidateFunction {
  const { ajv, validators } = state();
  const ref = `${DOCUMENT_ID}#/${pointer.map(escapePointer).join('/')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

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

function mediaTypeOf(headers: Headers): string | undefined {
  return headers.get('content-type')?.split(';')[0].trim().toLowerCase();
}

function formatAjvErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
}

/**
 * No operation exists for an unknown path or a wrong method, so the door's own answers are checked
 * here: a 404 problem, or a 405 problem whose Allow header lists exactly the documented methods.
 */
function undocumentedRouteProblems(method: string, path: string, response: RestResponseLike): string[] {
  const methods = path in state().document.paths ? Object.keys(state().document.paths[path]).map((m) => m.toUpperCase()) : [];
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
export function restResponseProblems(method: string, pathTemplateOrUrl: string, response: RestResponseLike): string[] {
  const { document } = state();
  const template = findPathTemplate(pathTemplateOrUrl);
  const verb = (method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase()) as keyof (typeof document.paths)[string];
  const operation: OpenApiOperation | undefined = template ? document.paths[template][verb] : undefined;
  if (!template || !operation) return undocumentedRouteProblems(method, template ?? pathTemplateOrUrl, response);

  const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) => key in operation.responses);
  if (!statusKey) return [`status ${response.status} is not documented for ${method} ${template}`];
  const documented = operation.responses[statusKey];
  const problems: string[] = [];
  const where = `${method} ${template} -> ${response.status}`;

  const documentedHeaders = new Set<string>();
  for (const [name, doc] of Object.entries(documented.headers ?? {})) {
    documentedHeaders.add(name.toLowerCase());
    const value = response.headers.get(name);
    if (value === null) {
      if (doc.required) problems.push(`${where}: required header ${name} is missing`);
      continue;
    }
    const typed = doc.schema.type === 'integer' || doc.schema.type === 'number' ? Number(value) : value;
    const validate = validatorAt(['paths', template, verb, 'responses', statusKey, 'headers', name, 'schema']);
    if (!validate(typed)) problems.push(`${where}: header ${name}=${value} does not match its schema: ${formatAjvErrors(validate)}`);
  }
  for (const name of ['x-page-next', 'retry-after', 'allow', 'x-ratelimit-limit', 'x-ratelimit-remaining']) {
    if (response.headers.get(name) !== null && !documentedHeaders.has(name)) problems.push(`${where}: header ${name} is sent but not documented`);
  }

  const content = documented.content;
  if (method.toUpperCase() === 'HEAD') return problems;
  if (!content) {
    if (response.text !== '') problems.push(`${where}: documented without a body, but a body was sent`);
    return problems;
  }
  const mediaType = mediaTypeOf(response.headers);
  if (!mediaType || !(mediaType in content)) {
    problems.push(`${where}: content-type ${mediaType ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`);
    return problems;
  }
  if (!/json/.test(mediaType)) return problems;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    problems.push(`${where}: body is not JSON: ${response.text.slice(0, 200)}`);
    return problems;
  }
  const validate = validatorAt(['paths', template, verb, 'responses', statusKey, 'content', mediaType, 'schema']);
  if (!validate(body)) problems.push(`${where}: body does not match the documented schema: ${formatAjvErrors(validate)}`);
  return problems;
}

/** Throws with every departure from the OpenAPI document. */
export function expectValidRestResponse(method: string, pathTemplateOrUrl: string, response: RestResponseLike): void {
  const problems = restResponseProblems(method, pathTemplateOrUrl, response);
  if (problems.length > 0) {
    throw new Error(`response does not conform to /v2.2/openapi.json:\n  ${problems.join('\n  ')}\nbody: ${response.text.slice(0, 500)}`);
  }
}
