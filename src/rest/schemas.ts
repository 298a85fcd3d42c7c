// JSON Schemas several REST routes share, so one shape is documented (and checked) one way.
import type { JsonSchema } from '../http/routeTable.ts';

/** A REST money object: an exact decimal amount as text, and its currency. */
export const MONEY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['amount', 'currency'],
  properties: {
    amount: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'Decimal amount in the currency, e.g. "12.50"' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  },
};

/** The `{error}` body order creation and its fulfillments answer for 400, 401, 404 and 409, as their integrations expect. */
export const ERROR_BODY_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false, required: ['error'], properties: { error: { type: 'string' } } };
