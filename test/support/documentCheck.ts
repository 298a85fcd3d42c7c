// Checking a real response against one documented OpenAPI response: its headers against
// their schemas, its media type, and its JSON body against the documented schema (Ajv,
// draft 2020-12, with formats). Shared by the check against the document the service
// serves (./openapi.ts) and the one against the published reference (./reference.ts).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; depending on the loader its default import is the plugin or its module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

/** The part of a response the checks read; `call()` from ./server.ts returns it. */
export interface ResponseLike {
  status: number;
  headers: Headers;
  text: string;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** An OpenAPI document loaded into Ajv, with a validator for any schema in it by JSON pointer. */
export class CheckedDocument {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    document: object,
    private readonly id: string,
  ) {
    // strict: false because OpenAPI schemas carry annotations Ajv does not know (example, externalDocs ...).
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(document, id);
  }

  validatorAt(pointer: string[]): ValidateFunction {
    const ref = `${this.id}#/${pointer.map(escapePointer).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

export function mediaTypeOf(headers: Headers): string | undefined {
  return headers.get('content-type')?.split(';')[0].trim().toLowerCase();
}

export function formatAjvErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
}

interface DocumentedHeader {
  required?: boolean;
  schema: { type?: unknown };
}

export interface DocumentedResponseCheck {
  document: CheckedDocument;
  /** `METHOD /template -> status`, the start of every problem. */
  where: string;
  method: string;
  response: ResponseLike;
  /** Names of the documented headers. */
  headerNames: string[];
  /** A documented header and the pointer of its schema. */
  header(name: string): { doc: DocumentedHeader; schemaPointer: string[] };
  /** The documented content by media type; absent for a response without a body. */
  content: Record<string, unknown> | undefined;
  /** The pointer of the body schema for a media type. */
  bodyPointer(mediaType: string): string[];
  /** Names the document in the body problem ("the documented schema", "the reference schema"). */
  schemaName: string;
}

/** Every way the response departs from its documented response; empty when it conforms. */
export function documentedResponseProblems(check: DocumentedResponseCheck): string[] {
  const { document, where, response } = check;
  const problems: string[] = [];
  for (const name of check.headerNames) {
    const { doc, schemaPointer } = check.header(name);
    const value = response.headers.get(name);
    if (value === null) {
      if (doc.required) problems.push(`${where}: required header ${name} is missing`);
      continue;
    }
    const typed = doc.schema.type === 'integer' || doc.schema.type === 'number' ? Number(value) : value;
    const validate = document.validatorAt(schemaPointer);
    if (!validate(typed)) problems.push(`${where}: header ${name}=${value} does not match its schema: ${formatAjvErrors(validate)}`);
  }

  if (check.method.toUpperCase() === 'HEAD') return problems;
  const content = check.content;
  if (!content) {
    if (response.text !== '') problems.push(`${where}: documented without a body, but a body was sent`);
    return problems;
  }
  const mediaType = mediaTypeOf(response.headers);
  if (!mediaType || !(mediaType in content)) {
    problems.push(`${where}: content-type ${mediaType ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`);
    return problems;
  }
  // Pages and files (the HTML reference) are checked for their media type only.
  if (!/json/.test(mediaType)) return problems;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    problems.push(`${where}: body is not JSON: ${response.text.slice(0, 200)}`);
    return problems;
  }
  const validate = document.validatorAt(check.bodyPointer(mediaType));
  if (!validate(body)) problems.push(`${where}: body does not match ${check.schemaName}: ${formatAjvErrors(validate)}`);
  return problems;
}
