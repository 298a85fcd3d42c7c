// The export routes (exports.ts) in the /v3/rest OpenAPI document, beside SOFA's routes: one
// path per list and format, with the list's parameters, its columns in the order of the file,
// and the same failures (the shared problem responses SOFA's routes refer to).
import { EXPORT_FORMATS, LIST_EXPORTS, type ExportFormat, type ListExport } from '../exports/listExports.ts';
import { EXPORTS_PATH } from './exports.ts';
import type { SofaOpenApiDocument } from './sofaDocument.ts';

const RESPONSE_REF = '#/components/responses/';

/** The shared problem responses (sofaDocument.ts PROBLEMS) an export can answer. */
const FAILURES: Record<string, string> = { '400': 'BadInput', '401': 'Unauthorized', '403': 'Forbidden', '500': 'InternalError', '503': 'Unavailable' };

const SEARCH_DESCRIPTION =
  "The list's search, in the syntax of the v3 field's `query` argument (words, \"phrases\", field:value, -term, a OR b, parentheses); every record when absent";

function columnsTable(list: ListExport<unknown>): string {
  const rows = list.columns.map((column) => `| ${column.header} | \`${column.key}\` | ${column.description} |`);
  return ['| CSV header | JSON Lines member | |', '| --- | --- | --- |', ...rows].join('\n');
}

function operation(list: ListExport<unknown>, format: ExportFormat) {
  const parameters = [
    ...(list.searchable ? [{ name: 'query', in: 'query', required: false, description: SEARCH_DESCRIPTION, schema: { type: 'string', maxLength: 1000 } }] : []),
    ...list.parameters.map((parameter) => ({
      name: parameter.name,
      in: 'query',
      required: false,
      description: parameter.repeated ? `${parameter.description}; may be repeated, or comma separated` : parameter.description,
      schema: { type: 'string' },
      ...(parameter.repeated ? { explode: true } : {}),
    })),
  ];
  return {
    operationId: `export_${list.name.replace(/-/g, '_')}_${format}`,
    tags: ['exports'],
    summary: `Export ${list.name.replace(/-/g, ' ')} as ${format === 'csv' ? 'CSV' : 'JSON Lines'}`,
    description:
      `Every record the ${list.name.replace(/-/g, ' ')} list finds, ${list.order}, one row per record, streamed as it is read (any size). ` +
      `Needs ${list.scope}. ${EXPORT_FORMATS[format].description}. Amounts are decimal numbers as text (12.50) beside a currency column, times ISO 8601 in UTC, ` +
      `empty cells (null in JSON Lines) where a record has no value. In CSV a cell starting with = + - @, a tab or a carriage return is written with a ' before it, ` +
      `so a spreadsheet shows it as text and never runs it as a formula (JSON Lines leaves values as they are). A refusal (a malformed search, a missing scope) ` +
      `is answered before the file starts; a failure after that cuts the connection, so a file that ends early is incomplete.\n\nColumns, in this order:\n\n${columnsTable(list)}`,
    parameters,
    responses: {
      '200': {
        description: `The file, as an attachment named ${list.name}-<UTC date>.${format}`,
        headers: { 'Content-Disposition': { description: `attachment; filename="${list.name}-<YYYY-MM-DD>.${format}"`, schema: { type: 'string' } } },
        content: { [EXPORT_FORMATS[format].contentType]: { schema: { type: 'string' } } },
      },
      ...Object.fromEntries(Object.entries(FAILURES).map(([status, name]) => [status, { $ref: `${RESPONSE_REF}${name}` }])),
      '429': { description: 'Rate limit of the API client exceeded (one budget with /v2.2): retry after Retry-After seconds', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    },
  };
}

/** `document` with a path for each list's export in each format. */
export function documentExports(document: SofaOpenApiDocument): SofaOpenApiDocument {
  const paths = { ...document.paths };
  for (const list of Object.values(LIST_EXPORTS) as ListExport<unknown>[]) {
    for (const format of Object.keys(EXPORT_FORMATS) as ExportFormat[]) paths[`${EXPORTS_PATH}/${list.name}.${format}`] = { get: operation(list, format) };
  }
  return { ...document, paths };
}
