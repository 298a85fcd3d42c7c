// A list's Export links (searchListView's exportPath): the whole search the page shows, as
// a CSV or JSON Lines download (listExports.ts), read with the signed-in user's context.
// The links carry the list page's own parameters (q, and the returns queue's status tab and
// sort), turned here into the export's.
import { GraphQLEnumType } from 'graphql';
import type { DoorResponse } from '../../http/door.ts';
import { EXPORT_FORMATS, exportParameterNames, listExportAnswer, listExportNamed, type ExportFormat, type ListExport } from '../../exports/listExports.ts';
import { schema } from '../../schema/index.ts';
import { html } from '../html.ts';
import { SECURITY_HEADERS } from '../http.ts';
import { failureOf, notFound, view, type DashboardRequest } from './kit.ts';
import { RETURN_SORTS } from './returns.ts';

/** The queue's "All" tab: every status but deleted. */
const NOT_DELETED = (schema.getType('ReturnStatus') as GraphQLEnumType)
  .getValues()
  .map((value) => value.name)
  .filter((status) => status !== 'DELETED');

/** The export's parameters for a list page's: the search (q), for the returns queue its tab and sort, and any of the export's own. */
function exportParameters(list: ListExport<unknown>, page: URLSearchParams): URLSearchParams {
  const own = new Set(exportParameterNames(list));
  const parameters = new URLSearchParams([...page].filter(([name]) => own.has(name)));
  const q = page.get('q');
  if (q && own.has('query')) parameters.set('query', q);
  if (list.name === 'returns') {
    if (!parameters.has('status')) for (const status of NOT_DELETED) parameters.append('status', status);
    const sort = Object.entries(RETURN_SORTS).find(([name]) => name === page.get('sort'))?.[1];
    if (sort) {
      parameters.set('sort_key', sort.sortKey);
      parameters.set('reverse', String(sort.reverse));
    }
  }
  return parameters;
}

/** GET /admin/exports/{list}.{csv|jsonl} */
export async function exportList(req: DashboardRequest, file: string): Promise<DoorResponse> {
  const [name, format, ...rest] = file.split('.');
  const list = listExportNamed(name);
  if (!list || rest.length > 0 || !Object.hasOwn(EXPORT_FORMATS, format)) return notFound(req);
  return listExportAnswer(req.ctx, list, format as ExportFormat, list.variables(exportParameters(list, req.query)), {
    headers: SECURITY_HEADERS,
    refused: (failure) => {
      const refusal = failureOf(failure.error);
      return view(req, refusal.status, 'Export refused', html`<div class="error" role="alert">Nothing was exported: ${refusal.message}</div>`);
    },
  });
}
