// Invoices: what the service charges the store, per calendar month (UTC) and currency.
// The CSV routes name no store in their path: the invoice must be the caller's store's.
// A month's items grow with the store's returns and orders, so the CSVs are streamed.
import { json, type DoorResponse } from '../../http/door.ts';
import type { Route, RouteInput } from '../../http/routeTable.ts';
import { connectionPages } from '../../schema/connectionPages.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { streamedAnswer } from '../../http/streamedAnswer.ts';
import { csvLayout } from '../../exports/csv.ts';
import { problem, problemFromOutcome } from '../problem.ts';

const LIST = defineOperation(`
  query RestInvoices { store { id } invoices { id status createdAt updatedAt charge { amount currency } } }`);

const ONE = defineOperation(`
  query RestInvoice($id: ID!) { invoice(id: $id) { id month } }`);

const PENDING = defineOperation(`
  query RestPendingInvoices { pendingInvoices { id month } }`);

const ITEMS = defineOperation(`
  query RestInvoiceItems($invoiceId: ID!, $first: Int, $after: String) {
    invoiceItems(invoiceId: $invoiceId, first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { id kind description subjectId occurredAt amount { amount currency } }
    }
  }`);

type Money = { amount: string; currency: string };
type InvoiceSummary = { id: string; status: string; createdAt: string; updatedAt: string; charge: Money };
type InvoiceHead = { id: string; month: string };
type ItemsPage = {
  invoiceItems: {
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    nodes: { id: string; kind: string; description: string; subjectId: string; occurredAt: string; amount: Money }[];
  };
};

export const CSV_HEADER = ['invoice_id', 'month', 'item_id', 'occurred_at', 'kind', 'description', 'subject_id', 'amount', 'currency'] as const;

/** One row per item of the invoices, in their order. */
async function* csvRows(invoices: InvoiceHead[], input: RouteInput) {
  for (const invoice of invoices) {
    yield* connectionPages<ItemsPage, string[]>(ITEMS, { invoiceId: invoice.id }, input.ctx, ({ invoiceItems }) => ({
      items: invoiceItems.nodes.map((item) => [invoice.id, invoice.month, item.id, item.occurredAt, item.kind.toLowerCase(), item.description, item.subjectId, item.amount.amount, item.amount.currency]),
      pageInfo: invoiceItems.pageInfo,
    }));
  }
}

function csvResponse(invoices: InvoiceHead[], filename: string, input: RouteInput): Promise<DoorResponse> {
  return streamedAnswer(csvRows(invoices, input), {
    layout: csvLayout(CSV_HEADER),
    headers: { 'content-disposition': `attachment; filename="${filename}"` },
    refused: (failure) => problemFromOutcome(failure, input.instance),
  });
}

async function list(input: RouteInput) {
  const outcome = await runOperation<{ store: { id: string }; invoices: InvoiceSummary[] }>(LIST, {}, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const storeId = outcome.data.store.id;
  return json(200, { invoices: outcome.data.invoices.map((i) => ({ ...i, status: i.status.toLowerCase(), store: { id: storeId } })) });
}

async function itemsCsv(input: RouteInput) {
  const outcome = await runOperation<{ invoice: InvoiceHead | null }>(ONE, { id: input.params.invoiceId }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { id: 'invoiceId' });
  const invoice = outcome.data.invoice;
  if (!invoice) return problem(404, `invoice ${input.params.invoiceId} not found`, { instance: input.instance });
  return csvResponse([invoice], `invoice-${invoice.id}.csv`, input);
}

async function pendingCsv(input: RouteInput) {
  const outcome = await runOperation<{ pendingInvoices: InvoiceHead[] }>(PENDING, {}, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return csvResponse(outcome.data.pendingInvoices, 'invoice-pending.csv', input);
}

const CSV_DESCRIPTION =
  `CSV (RFC 4180, CRLF, header row \`${CSV_HEADER.join(',')}\`), one row per item; the items add up to the invoice's charge exactly. ` +
  'A cell starting with = + - @ tab or CR is prefixed with an apostrophe so spreadsheets do not run it as a formula.';

export const invoiceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/invoices',
    scopes: ['invoices_read'],
    doc: {
      summary: 'List Invoices',
      tag: 'Invoices',
      description: 'One invoice per calendar month (UTC) and currency charged, newest first; `pending` for the current month, `issued` before. `charge` is the exact sum of the items.',
      responses: {
        '200': {
          description: 'The invoices',
          schema: {
            type: 'object',
            required: ['invoices'],
            properties: {
              invoices: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'status', 'charge', 'store', 'createdAt', 'updatedAt'],
                  properties: {
                    id: { type: 'string', pattern: '^inv_' },
                    status: { type: 'string', enum: ['pending', 'issued'] },
                    charge: { type: 'object', properties: { amount: { type: 'string' }, currency: { type: 'string' } } },
                    store: { type: 'object', properties: { id: { type: 'string' } } },
                    createdAt: { type: 'string', format: 'date-time' },
                    updatedAt: { type: 'string', format: 'date-time' },
                  },
                },
              },
            },
          },
        },
      },
    },
    handle: list,
  },
  // Before /invoices/{invoiceId}/items.csv: the literal segment wins.
  {
    method: 'GET',
    path: '/invoices/pending/items.csv',
    scopes: ['invoices_read'],
    doc: { summary: 'Pending Invoice (CSV)', tag: 'Invoices', description: `The items of the current month. ${CSV_DESCRIPTION}`, responses: { '200': { description: 'The items', mediaType: 'text/csv' } } },
    handle: pendingCsv,
  },
  {
    method: 'GET',
    path: '/invoices/{invoiceId}/items.csv',
    scopes: ['invoices_read'],
    doc: {
      summary: 'Invoice (CSV)',
      tag: 'Invoices',
      description: CSV_DESCRIPTION,
      responses: { '200': { description: 'The items', mediaType: 'text/csv' }, '404': { description: "The caller's store has no invoice with this id", problem: true } },
    },
    handle: itemsCsv,
  },
];
