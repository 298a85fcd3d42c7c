// A person's data export as one JSON document, written while it is read: the v3
// `customerDataExport` records read page by page (keyset, so memory holds about one page however
// much the person has) and laid out between the document's head and its closing, as the big REST
// lists are (streamedAnswer.ts). The REST door's route and the dashboard's export button both
// answer it; each says how a refusal looks on its door.
//
// The document (version 1):
//   { "format": "customer-data-export", "version": 1, "storeId": "str_...", "generatedAt": "<ISO 8601>",
//     "subject": { "customerIds": [...], "emails": [...], "phoneNumbers": [...] },
//     "records": [ { "kind": "customer" | "order" | "return" | "custom_event" | "storefront_event"
//                    | "webhook_event" | "audit_entry", "id": "...", "data": { <the row, with its children> } }, ... ] }
import type { DoorResponse } from '../http/door.ts';
import { connectionPages } from '../schema/connectionPages.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { defineOperation, runOperation, type OperationOutcome } from '../schema/execute.ts';
import { streamedAnswer, type AnswerLayout } from '../http/streamedAnswer.ts';

const HEAD = defineOperation(`
  query CustomerDataExportHead($customerId: ID, $email: String) {
    customerDataExport(customerId: $customerId, email: $email) { format version storeId subject { customerIds emails phoneNumbers } }
  }`);

const RECORDS = defineOperation(`
  query CustomerDataExportRecords($customerId: ID, $email: String, $first: Int, $after: String) {
    customerDataExport(customerId: $customerId, email: $email) {
      records(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { kind id data } }
    }
  }`);

interface Head {
  format: string;
  version: number;
  storeId: string;
  subject: { customerIds: string[]; emails: string[]; phoneNumbers: string[] };
}

interface ExportedRecord {
  kind: string;
  id: string;
  data: unknown;
}

interface RecordsPage {
  customerDataExport: { records: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ExportedRecord[] } };
}

type Failure = Extract<OperationOutcome<unknown>, { ok: false }>;

/** The person, as a door names them: by customer id or by e-mail (exactly one: the schema refuses otherwise). */
export interface NamedPerson {
  customerId?: string;
  email?: string;
}

function layoutOf(head: Head): AnswerLayout<ExportedRecord> {
  const { format, version, storeId, subject } = head;
  const opening = JSON.stringify({ format, version, storeId, generatedAt: new Date().toISOString(), subject });
  return {
    contentType: 'application/json; charset=utf-8',
    // The head's members, then the records' array, which the closing ends.
    open: `${opening.slice(0, -1)},"records":[`,
    separator: ',',
    close: ']}',
    item: (record) => JSON.stringify({ kind: record.kind.toLowerCase(), id: record.id, data: record.data }),
  };
}

/**
 * The export of the person as a streamed 200, `pageSize` records per read (at most the door's
 * page size); a refusal (bad input, an unknown customer, a missing scope) is found before
 * anything is sent and answered by `refused`.
 */
export async function customerDataExportAnswer(
  ctx: GraphQLContext,
  person: NamedPerson,
  answer: { pageSize: number; refused: (failure: Failure) => DoorResponse; headers?: Record<string, string> },
): Promise<DoorResponse> {
  const variables = { customerId: person.customerId ?? null, email: person.email ?? null };
  const head = await runOperation<{ customerDataExport: Head }>(HEAD, variables, ctx);
  if (!head.ok) return answer.refused(head);
  const { customerDataExport } = head.data;
  const pages = connectionPages<RecordsPage, ExportedRecord>(
    RECORDS,
    variables,
    ctx,
    (data) => ({ items: data.customerDataExport.records.nodes, pageInfo: data.customerDataExport.records.pageInfo }),
    answer.pageSize,
  );
  // Named by the customer, never by the e-mail: a header is no place for it.
  const filename = `customer-data-${customerDataExport.subject.customerIds[0] ?? 'export'}.json`;
  return streamedAnswer(pages, {
    layout: layoutOf(customerDataExport),
    headers: { 'content-disposition': `attachment; filename="${filename}"`, ...answer.headers },
    refused: answer.refused,
  });
}
