// A shopper's data export and erasure on the v2.2 door, beside the customers routes: our
// extensions (the reference document has neither), over the v3 `customerDataExport` query and
// `customerErase` mutation. The export is a GET (it reads; a person is named in its query, as
// GET /customers?email= names one) streamed as one JSON document; the erasure a POST.
import { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { json, type DoorResponse } from '../../http/door.ts';
import { customerDataExportAnswer } from '../../exports/customerDataExport.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { WHOLE_CONNECTION_PAGE_SIZE } from '../../schema/connectionPages.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { schema } from '../../schema/index.ts';
import { checkShape } from '../bodyShape.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';

// The record kinds and the counts are the schema's, so this document and v3 name the same ones.
const KINDS = (schema.getType('CustomerDataKind') as GraphQLEnumType).getValues().map((v) => String(v.value));
const COUNT_KINDS = Object.keys((schema.getType('CustomerErasureCounts') as GraphQLObjectType).getFields());

const SUBJECT: JsonSchema = {
  type: 'object',
  required: ['customerIds', 'emails', 'phoneNumbers'],
  properties: {
    customerIds: { type: 'array', items: { type: 'string' }, description: 'The customers that are the person, the named one first' },
    emails: { type: 'array', items: { type: 'string' }, description: 'Their e-mails: orders, returns and storefront events carrying one are theirs' },
    phoneNumbers: { type: 'array', items: { type: 'string' }, description: 'Their phone numbers (E.164): orders with neither e-mail nor customer but one of these are theirs' },
  },
};

const EXPORT_DOCUMENT: JsonSchema = {
  type: 'object',
  required: ['format', 'version', 'storeId', 'generatedAt', 'subject', 'records'],
  properties: {
    format: { const: 'customer-data-export' },
    version: { const: 1, description: "The records' shape; a change of it is a new version" },
    storeId: { type: 'string', pattern: '^str_' },
    generatedAt: { type: 'string', format: 'date-time' },
    subject: SUBJECT,
    records: {
      type: 'array',
      description:
        'Kind by kind in this order, by id within a kind: customer (with customFieldValues, phoneNumberKeys, subscriptions), order (with ' +
        'lineItems, fulfillmentGroups, fulfillments with their lineItems and trackingEvents, coverages), return (with items, notes, ' +
        'statusChanges), custom_event, storefront_event, webhook_event (an outbox event about one of these records, its data being the ' +
        'body webhook deliveries send, with deliveries and their attempts) and audit_entry (a change of one of them, values before and after)',
      items: {
        type: 'object',
        required: ['kind', 'id', 'data'],
        properties: {
          kind: { type: 'string', enum: KINDS },
          id: { type: 'string' },
          data: {
            type: 'object',
            description: 'The row as stored, every column by name (timestamps ISO 8601 in UTC, amounts and counters as exact decimal text), with its children; search documents left out',
          },
        },
      },
    },
  },
};

const ERASE_REQUEST: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    customerId: { type: 'string', pattern: '^cus_', description: 'The customer to erase' },
    email: { type: 'string', format: 'email', description: 'An e-mail, any case: the customer with it and whatever else carries it' },
  },
  description: 'Exactly one of customerId and email',
};


const ERASE_RESPONSE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['customerIds', 'counts', 'total', 'eventId'],
  properties: {
    customerIds: { type: 'array', items: { type: 'string' }, description: 'The customers erased (their rows stay, without personal values or lookup keys)' },
    counts: {
      type: 'object',
      additionalProperties: false,
      required: COUNT_KINDS,
      description: 'Rows changed per kind (deleted, for lookup keys, custom field values and options, kept answers and documents); all 0 when nothing was left',
      properties: Object.fromEntries(COUNT_KINDS.map((kind) => [kind, { type: 'integer', minimum: 0 }])),
    },
    total: { type: 'integer', minimum: 0 },
    eventId: { type: ['string', 'null'], description: 'The customer.redacted event recorded for webhook subscribers; null when nothing changed' },
  },
};

const ERASE = defineOperation(`
  mutation RestCustomerErase($input: CustomerEraseInput!) {
    customerErase(input: $input) {
      customerIds total eventId
      counts { ${COUNT_KINDS.join(' ')} }
    }
  }`);

/** `customer_id` or `email`, each at most once; which one is the schema's to check. */
function namedPerson(input: RouteInput): { customerId?: string; email?: string } | DoorResponse {
  const issues = ['customer_id', 'email'].flatMap((name) => (input.query.getAll(name).length > 1 ? [{ path: name, message: 'must be given at most once' }] : []));
  if (issues.length > 0) return validationProblem(issues, input.instance);
  return { customerId: input.query.get('customer_id') ?? undefined, email: input.query.get('email') ?? undefined };
}

async function exportData(input: RouteInput): Promise<DoorResponse> {
  const person = namedPerson(input);
  if ('status' in person) return person;
  return customerDataExportAnswer(input.ctx, person, {
    pageSize: WHOLE_CONNECTION_PAGE_SIZE,
    refused: (failure) => problemFromOutcome(failure, input.instance, { customerId: 'customer_id' }),
  });
}

async function erase(input: RouteInput): Promise<DoorResponse> {
  const shape = checkShape(ERASE_REQUEST, input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const outcome = await runOperation<{ customerErase: Record<string, unknown> }>(ERASE, { input: shape.value }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { input: '' });
  return json(200, outcome.data.customerErase);
}

const PRIVACY_SCOPE =
  'Needs customers_privacy, a scope of its own: reading everything about one person at once, and erasing it, is more than customers_read ' +
  'or customers_write allow.';

export const customerPrivacyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stores/{storeId}/customers/data-export',
    scopes: ['customers_privacy'],
    doc: {
      summary: "Export a customer's data",
      tag: 'Customers',
      description:
        "Everything the store holds about one person (GDPR articles 15 and 20), named by customer id or by e-mail, as one JSON document, " +
        'streamed as it is read (bounded memory however much the person has). The person is the customer named (or the one with the ' +
        "e-mail) and the e-mail-less customers the store's phone lookup names for its phone numbers; their records are those customers, " +
        'orders linked to them or carrying one of their e-mails (or, with neither, one of their phone numbers), the returns of those ' +
        'orders and imported returns carrying their e-mail, their custom and storefront events, the webhook events about any of these ' +
        `with their deliveries, and the audit trail of their records. Nothing of another person. ${PRIVACY_SCOPE}`,
      parameters: [
        { name: 'customer_id', in: 'query', description: 'The customer (cus_); or `email`, not both', schema: { type: 'string' } },
        { name: 'email', in: 'query', description: 'An e-mail, any case; or `customer_id`, not both', schema: { type: 'string', format: 'email' } },
      ],
      responses: {
        '200': { description: 'The export (Content-Disposition: attachment)', schema: EXPORT_DOCUMENT },
        '400': { description: 'Neither or both of customer_id and email, one given twice, or an invalid e-mail', problem: true },
        '404': { description: 'The store has no customer with this id', problem: true },
      },
    },
    handle: exportData,
  },
  {
    method: 'POST',
    path: '/stores/{storeId}/customers/erase',
    scopes: ['customers_privacy'],
    doc: {
      summary: "Erase a customer's data",
      tag: 'Customers',
      description:
        "Erases one person's personal data everywhere the store keeps it (GDPR article 17), in one transaction; cannot be undone. Names, " +
        "e-mails, phone numbers, addresses, what they wrote, custom field values, the bodies kept for webhook replays and the audit trail's " +
        'values become "[redacted]" (or are cleared); amounts, dates, SKUs, quantities, statuses and ids stay. The customers keep their rows ' +
        'but no lookup finds them again: later data for the same e-mail starts a new customer. Records customer.redacted (ids and counts ' +
        `only) for webhook subscribers. Erasing again changes nothing and answers zero counts. ${PRIVACY_SCOPE}`,
      requestBody: { required: true, schema: ERASE_REQUEST, description: 'Who to erase' },
      responses: {
        '200': { description: 'What the erasure changed', schema: ERASE_RESPONSE },
        '400': { description: 'Neither or both of customerId and email, an unknown member, or an invalid e-mail', problem: true },
        '404': { description: 'The store has no customer with this id', problem: true },
      },
    },
    handle: erase,
  },
];
