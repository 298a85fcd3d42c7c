// /v3/rest/exports/{list}.csv and .jsonl: a list's search exported whole (listExports.ts),
// beside SOFA's generated /v3/rest routes and answered as they are: the same bearer
// authentication, the REST rate limit, the schema's scope rules, failures as problem+json.
// A door of its own, asked before SOFA's (process/server.ts), because SOFA answers JSON only.
import { isAuthFailure, readSecret } from '../auth/authenticate.ts';
import type { DoorDeps } from '../http/appDeps.ts';
import { header, readRequestInput, type Door, type DoorRequest, type DoorResponse } from '../http/door.ts';
import { EXPORT_FORMATS, exportParameterNames, listExportAnswer, listExportNamed, type ExportFormat, type ListExport } from '../exports/listExports.ts';
import { restRateHeaders } from './door.ts';
import { problem, problemFromOutcome } from './problem.ts';

/** Below /v3/rest (SOFA's routes, whose OpenAPI document names its paths from there). */
export const EXPORTS_PATH = '/exports';
export const EXPORTS_PREFIX = `/v3/rest${EXPORTS_PATH}`;

/** The list and format a path names (`/v3/rest/exports/returns.csv`), if it names one. */
function exportOf(pathname: string): { list: ListExport<unknown>; format: ExportFormat } | undefined {
  const match = /^\/v3\/rest\/exports\/([a-z-]+)\.([a-z]+)$/.exec(pathname);
  if (!match || !Object.hasOwn(EXPORT_FORMATS, match[2])) return undefined;
  const list = listExportNamed(match[1]);
  return list && { list, format: match[2] as ExportFormat };
}

export function createExportsDoor({ newContext }: DoorDeps): Door {
  /** The export the request names, or its refusal before the caller matters (no such export, bad input, an unknown parameter). */
  function exportAsked(request: DoorRequest): { list: ListExport<unknown>; format: ExportFormat } | { refused: DoorResponse } {
    const { pathname, searchParams } = request.url;
    const instance = pathname + request.url.search;
    const named = exportOf(pathname);
    if (!named || (request.method !== 'GET' && request.method !== 'HEAD')) return { refused: problem(404, `no route for ${request.method} ${pathname}`, { instance }) };
    const input = readRequestInput(request, {});
    if (!input.ok) return { refused: problem(400, input.message, { instance, errors: input.issues }) };
    const known = exportParameterNames(named.list);
    const unknown = [...new Set(searchParams.keys())].filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      const issues = unknown.map((name) => ({ path: name, message: `is not a parameter of this export (it takes ${known.join(', ')})` }));
      return { refused: problem(400, `unknown parameter ${unknown.join(', ')}`, { instance, errors: issues }) };
    }
    return named;
  }

  async function handle(request: DoorRequest): Promise<DoorResponse> {
    const { pathname, searchParams } = request.url;
    const instance = pathname + request.url.search;
    const asked = exportAsked(request);
    if ('refused' in asked) return asked.refused;
    const { list, format } = asked;
    const auth = request.auth!;
    if (isAuthFailure(auth)) return problem(auth.status, auth.message, { instance });
    const ctx = newContext({ auth, door: 'v3', requestId: request.requestId });
    return listExportAnswer(ctx, list, format, list.variables(searchParams), { refused: (failure) => problemFromOutcome(failure, instance) });
  }

  return {
    name: 'exports',
    matches: (pathname) => pathname.startsWith(`${EXPORTS_PREFIX}/`),
    reject: (status, message, request) => problem(status, message, { instance: request.url.pathname + request.url.search }),
    credentials: (request) => readSecret(header(request, 'authorization')),
    budget: { name: 'rest', headers: restRateHeaders, spentBy: (request) => !('refused' in exportAsked(request)) && request.auth !== undefined && !isAuthFailure(request.auth) },
    routeOf: (request) => {
      const named = exportOf(request.url.pathname);
      return named && `${EXPORTS_PREFIX}/${named.list.name}.${named.format}`;
    },
    handle,
  };
}
