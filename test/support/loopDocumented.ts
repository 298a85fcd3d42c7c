// JSON Schemas of the fields Loop Returns documents for the warehouse endpoints the compatibility
// door imitates, and for its label webhook, written from its reference pages (read 2026-11-25):
//   details   https://docs.loopreturns.com/api-reference/latest/return-data/get-return-details (and its .md OpenAPI)
//   list      https://docs.loopreturns.com/api-reference/latest/return-data/detailed-returns-list
//   ASN       https://docs.loopreturns.com/api-reference/latest/return-data/advanced-shipping-notice
//             (the field names from its response example, the meanings from its descriptions)
//   label     https://docs.loopreturns.com/webhook-reference/topics/label-webhook
//             https://docs.loopreturns.com/reference/label-webhook (the older page)
// and, where a page gives descriptions without names, the compiled OpenAPI of
// github.com/api-evangelist/loop-returns, openapi/_original/loop-returns-returns-openapi.yml
// (AsnReport, DetailedReturnList). Every documented field is required, with the JSON type and
// format the page's example gives it; fields of our own (svc_id ...) are allowed beside them.
// A field is nullable where the platform documents "none" as null or where our data can lack
// it (an imported return has no order, a return may have no label yet); tests check the
// seeded values separately. Departures from the pages, each the service's choice, are marked
// DEPARTURE with the reason (README, compat section).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; depending on the loader its default import is the plugin or its module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

type Schema = Record<string, unknown>;

const string: Schema = { type: 'string' };
const integer: Schema = { type: 'integer' };
const boolean: Schema = { type: 'boolean' };
/** Money: a decimal string with two decimals ("63.30"), as every example writes it. */
const money: Schema = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' };
/** Get Return Details' times: "2023-08-22 14:08:31". */
const detailsTime: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' };
/** The list's and line items' times: "2023-01-01T22:27:15.000Z". */
const isoTime: Schema = { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' };
const state: Schema = { type: 'string', enum: ['open', 'closed', 'cancelled', 'expired', 'review'] };

function nullable(schema: Schema): Schema {
  return { ...schema, type: [schema.type as string, 'null'] };
}

function object(properties: Record<string, Schema>): Schema {
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: true };
}

/** Fields both return endpoints document the same way. */
const returnMoney = {
  total: money,
  return_product_total: money,
  return_discount_total: money,
  return_tax_total: money,
  return_total: money,
  return_credit_total: money,
  exchange_product_total: money,
  exchange_discount_total: money,
  exchange_tax_total: money,
  exchange_total: money,
  exchange_credit_total: money,
  gift_card: money,
  handling_fee: money,
  refund: money,
  upsell: money,
};

export const detailsSchema = object({
  id: integer,
  created_at: detailsTime,
  updated_at: detailsTime,
  // Documented null until the return is edited (return webhook page).
  edited_at: nullable(detailsTime),
  order_id: nullable(string),
  order_name: nullable(string),
  order_number: nullable(string),
  provider_order_number: nullable(integer),
  provider_order_id: nullable(integer),
  customer: nullable(string),
  multi_currency: boolean,
  state,
  currency: string,
  exchange: nullable(string),
  exchange_order_name: nullable(string),
  exchange_order_id: nullable(string),
  gift_card_order_name: nullable(string),
  gift_card_order_id: nullable(string),
  ...returnMoney,
  refunds: {
    type: 'array',
    items: object({ gateway: nullable(string), amount: money, currency: string, provider_refund_id: nullable(string) }),
  },
  line_items: {
    type: 'array',
    items: object({
      // DEPARTURE: the example writes an integer; ours is the rli_ id the remove action takes (the list documents a string).
      line_item_id: string,
      provider_line_item_id: nullable(integer),
      product_id: nullable(integer),
      variant_id: nullable(integer),
      sku: nullable(string),
      line_item_title: string,
      variant_title: nullable(string),
      title: string,
      image: nullable({ type: 'string', format: 'uri' }),
      price: money,
      discount: money,
      tax: money,
      refund: money,
      returned_at: isoTime,
      exchange_variant: string,
      barcode: nullable(string),
      provider_restock_location_id: nullable(string),
      consolidation_tracking: nullable(string),
    }),
  },
});

const listItem = object({
  // DEPARTURE: the example writes "12345678"; we keep `id` a number in every compatibility return.
  id: integer,
  state,
  created_at: isoTime,
  updated_at: isoTime,
  edited_at: nullable(isoTime),
  outcome: nullable(string),
  order_id: nullable(string),
  order_name: nullable(string),
  provider_order_id: nullable(string),
  order_number: nullable(string),
  provider_order_number: nullable(string),
  customer: nullable(string),
  origin_country: nullable(string),
  origin_country_code: nullable({ type: 'string', pattern: '^[A-Z]{2}$' }),
  multi_currency: boolean,
  currency: string,
  ...returnMoney,
  gift_card_order_name: nullable(string),
  gift_card_order_id: nullable(string),
  // From the compiled OpenAPI's DetailedReturnList.
  carrier: nullable(string),
  tracking_number: nullable(string),
  label_status: nullable(string),
  label_url: nullable(string),
  destination_id: nullable(string),
  line_items: {
    type: 'array',
    items: object({
      line_item_id: string,
      provider_line_item_id: nullable(string),
      product_id: nullable(string),
      variant_id: nullable(string),
      sku: nullable(string),
      title: string,
      price: money,
      discount: money,
      tax: money,
      refund: money,
      refund_item: money,
      refund_tax: money,
      returned_at: isoTime,
      exchange_variant: string,
      return_reason: nullable(string),
      parent_return_reason: nullable(string),
      return_comment: nullable(string),
      barcode: nullable(string),
      outcome: string,
    }),
  },
});

export const listSchema: Schema = { type: 'array', items: listItem };

/** The paginated list (paginate=true): the page and the URLs of its neighbours. */
export const paginatedListSchema = object({
  returns: { type: 'array', items: listItem },
  nextPageUrl: nullable({ type: 'string', format: 'uri' }),
  previousPageUrl: nullable({ type: 'string', format: 'uri' }),
});

/**
 * The ASN page's response example names its fields in this order (its descriptions, in the same
 * order, give their meaning). The page as stored here breaks off after `destination_name`, in a
 * further name beginning "de"; that field is not checked.
 */
export const asnSchema: Schema = {
  type: 'array',
  items: object({
    id: integer,
    return_line_item_id: string,
    order_id: nullable(string),
    order_name: nullable(string),
    order_number: nullable(string),
    provider_order_number: nullable(string),
    state,
    customer_email: nullable(string),
    title: string,
    purchase_price: nullable(money),
    sku: nullable(string),
    barcode: nullable(string),
    carrier: nullable(string),
    // "The service used to ship the return."
    service: nullable(string),
    label_status: nullable(string),
    tracking_number: nullable(string),
    // "The link to the tracking details."
    integration_tracking_url: nullable(string),
    restock_status: nullable(string),
    currency: string,
    label_updated_at: nullable(isoTime),
    label_url: nullable(string),
    // "The shipping rate paid for the return label."
    label_rate: nullable(money),
    closed_at: nullable(isoTime),
    updated_at: isoTime,
    created_at: isoTime,
    return_reason: nullable(string),
    // "The method in which the return was actioned."
    actioned_by: nullable(string),
    return_method: nullable(string),
    // "The return material authorization code."
    return_method_rma_code: nullable(string),
    return_method_state: nullable(string),
    // "The delivery date of the return." A string without a format on the page.
    date_delivered: nullable(string),
    // DEPARTURE: `keep` (the customer keeps the item) is an outcome here the page does not list.
    outcome: { type: 'string', enum: ['exchange', 'upsell', 'refund', 'credit', 'exchange+refund', 'exchange+credit', 'keep'] },
    scannable_id: nullable(string),
    package_reference: nullable(string),
    // "The barcode for the box in which the return was shipped."
    shipping_box_barcode: nullable(string),
    provider_created_at: nullable(isoTime),
    destination_id: nullable(string),
    destination_name: nullable(string),
  }),
};

export const labelWebhookSchema = object({
  topic: { const: 'label' },
  trigger: { type: 'string', enum: ['label.created', 'label.updated', 'label.requested', 'label.closed'] },
  // DEPARTURE: documented an integer (the older page's example: "9876"); our store ids are text.
  shop_id: string,
  id: integer,
  // DEPARTURE: documented an integer (the older example: a string); our order id (ord_) is text.
  order_id: nullable(string),
  provider_order_id: nullable(integer),
  carrier: nullable(string),
  tracking_number: string,
  label_status: string,
  label_updated_at: { type: 'string', format: 'date-time' },
  shipment_id: nullable(string),
});

const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true, validateFormats: true });
addFormats(ajv);

export const validators = {
  details: ajv.compile(detailsSchema),
  list: ajv.compile(listSchema),
  paginatedList: ajv.compile(paginatedListSchema),
  asn: ajv.compile(asnSchema),
  labelWebhook: ajv.compile(labelWebhookSchema),
} satisfies Record<string, ValidateFunction>;

/** The validator's errors as one readable line, for an assertion message. */
export function problems(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}
