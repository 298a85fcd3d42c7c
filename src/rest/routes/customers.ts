// PUT /stores/{storeId}/customers and GET /stores/{storeId}/customers?email=
// (docs/interface-rules.md, "Customers"), hand-written adapters over the v3 `customerUpsert`
// mutation and `customer(email:)` query. The body's shape (JSON types, no unknown
// properties) is checked here against the documented schema; every rule on values
// (e-mail, E.164, custom field typing) is the domain's, reached through the mutation.
import { json } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape } from '../bodyShape.ts';
import { problem, problemFromOutcome, validationProblem } from '../problem.ts';

const LOCATION_PROPERTIES: Record<string, JsonSchema> = {
  street1: { type: 'string', description: 'Street line 1' },
  street2: { type: 'string', description: 'Street line 2' },
  city: { type: 'string' },
  state: { type: 'string', description: 'State or province name' },
  stateCode: { type: 'string', description: 'State or province abbreviation' },
  postalCode: { type: 'string' },
  country: { type: 'string', description: 'Country name' },
  countryCode: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' },
  ianaTimeZoneName: { type: 'string', description: 'IANA time zone identifier, e.g. America/New_York' },
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
};

const CUSTOM_FIELD_VALUE: JsonSchema = { type: ['string', 'number', 'boolean'] };

const UPSERT_REQUEST: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254, description: 'Upsert key, compared case-insensitively; stored lower case' },
    firstName: { type: 'string', description: 'The display name is made from first and last name' },
    lastName: { type: 'string' },
    phoneNumber: { type: 'string', pattern: '^\\+[1-9]\\d{1,14}$', description: 'E.164; appended to the phone list when not yet present' },
    location: {
      type: 'object',
      additionalProperties: false,
      description: 'Sets the current location; only the fields supplied are updated',
      properties: LOCATION_PROPERTIES,
    },
    customFields: {
      type: 'object',
      description:
        'Field name -> value. A string gives a STRING field (an ISO 8601 date-time string a DATE field), a number a NUMBER field, ' +
        'a boolean a BOOLEAN field; a new name is declared automatically and a declared field only takes values of its type.',
      additionalProperties: CUSTOM_FIELD_VALUE,
    },
  },
};

const UPSERT_RESPONSE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'created'],
  properties: {
    id: { type: 'string', pattern: '^cus_', description: 'Customer identifier' },
    email: { type: 'string', format: 'email' },
    created: { type: 'boolean', description: 'true when a new customer was made' },
  },
};

const CUSTOMER: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'phoneNumbers', 'customFields', 'createdAt', 'updatedAt'],
  description: 'Profile fields the customer does not have are left out (never null)',
  properties: {
    id: { type: 'string', pattern: '^cus_' },
    email: { type: 'string', format: 'email' },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    name: { type: 'string', description: 'Display name made from first and last name' },
    phoneNumber: { type: 'string', description: 'The latest phone number' },
    phoneNumbers: { type: 'array', items: { type: 'string' }, description: 'Every phone number, in the order first seen' },
    location: { type: 'object', additionalProperties: false, properties: LOCATION_PROPERTIES },
    customFields: { type: 'object', additionalProperties: CUSTOM_FIELD_VALUE, description: 'DATE fields as ISO 8601 strings' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const UPSERT = defineOperation(`
  mutation RestUpsertCustomer($input: CustomerUpsertInput!) {
    customerUpsert(input: $input) { created customer { id email } }
  }`);

const BY_EMAIL = defineOperation(`
  query RestCustomerByEmail($email: String!) {
    customer(email: $email) {
      id email firstName lastName name phoneNumber phoneNumbers
      location { street1 street2 city state stateCode postalCode country countryCode ianaTimeZoneName latitude longitude }
      customFields createdAt updatedAt
    }
  }`);

interface CustomerNode {
  location: Record<string, string | number | null> | null;
  [field: string]: unknown;
}

async function upsert(input: RouteInput) {
  const shape = checkShape(UPSERT_REQUEST, input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const outcome = await runOperation<{ customerUpsert: { created: boolean; customer: { id: string; email: string } } }>(
    UPSERT,
    { input: shape.value },
    input.ctx,
  );
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const { created, customer } = outcome.data.customerUpsert;
  return json(created ? 201 : 200, { id: customer.id, email: customer.email, created });
}

/** The stored location holds only the fields ever supplied; the unset ones are left out, as in the request. */
function locationJson(location: CustomerNode['location']) {
  if (!location) return null;
  return Object.fromEntries(Object.entries(location).filter(([, value]) => value !== null));
}

async function byEmail(input: RouteInput) {
  const emails = input.query.getAll('email');
  if (emails.length !== 1) {
    return validationProblem([{ path: 'email', message: emails.length === 0 ? 'is required' : 'must be given at most once' }], input.instance);
  }
  const outcome = await runOperation<{ customer: CustomerNode | null }>(BY_EMAIL, { email: emails[0] }, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const { customer } = outcome.data;
  if (!customer) return problem(404, `no customer with e-mail ${emails[0]}`, { instance: input.instance });
  // The reference's customer has no nullable profile field: an unknown one is left out.
  const body = Object.fromEntries(Object.entries({ ...customer, location: locationJson(customer.location) }).filter(([, value]) => value !== null));
  return json(200, body);
}

export const customerRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/stores/{storeId}/customers',
    scopes: ['customers_write'],
    doc: {
      summary: 'Create or update customer',
      tag: 'Customers',
      description:
        'Updates the customer with the given e-mail (compared case-insensitively), or creates one. ' +
        'Nothing of the request is written when any part of it is invalid.',
      requestBody: { required: true, schema: UPSERT_REQUEST, description: 'Customer upsert request (no additional properties)' },
      responses: {
        '200': { description: 'Existing customer updated', schema: UPSERT_RESPONSE },
        '201': { description: 'New customer created', schema: UPSERT_RESPONSE },
        '400': {
          description:
            'Invalid body or invalid e-mail: unknown properties, wrong JSON types, an e-mail or phone number in the wrong format, ' +
            'or a custom field value of another type than its declaration; `errors` names each offending input',
          problem: true,
        },
      },
    },
    handle: upsert,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/customers',
    scopes: ['customers_read'],
    doc: {
      summary: 'Get a customer by e-mail',
      tag: 'Customers',
      parameters: [
        { name: 'email', in: 'query', required: true, description: 'E-mail of the customer, compared case-insensitively', schema: { type: 'string', format: 'email' } },
      ],
      responses: {
        '200': { description: 'The customer', schema: CUSTOMER },
        '400': { description: 'The email parameter is missing, repeated or not an e-mail address', problem: true },
        '404': { description: 'The store has no customer with this e-mail', problem: true },
      },
    },
    handle: byEmail,
  },
];
