// Public storefront coverage (reference groups Coverage Products, Checkout Buttons,
// Coverage Info): no secret and no scope, as the reference says, but the store must
// exist, and nothing beyond that store's coverage offer is read. Merchant text is
// HTML-escaped wherever it is rendered.
import { json } from '../../http/door.ts';
import type { JsonSchema, Route, RouteInput } from '../../http/routeTable.ts';
import { MONEY_SCHEMA } from '../schemas.ts';
import { defineOperation, runOperation } from '../../schema/execute.ts';
import { checkShape } from '../bodyShape.ts';
import { problemFromOutcome, validationProblem } from '../problem.ts';

const CART_LINE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'quantity', 'product', 'variant', 'priceTotal'],
  properties: {
    id: { type: 'string' },
    quantity: { type: 'integer' },
    product: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    variant: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    priceTotal: MONEY_SCHEMA,
    originalPrice: MONEY_SCHEMA,
    coupons: { type: 'array' },
  },
};

const REQUEST_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['cart'],
  properties: {
    cart: { type: 'object', required: ['lineItems', 'priceTotal'], properties: { lineItems: { type: 'array', items: CART_LINE_SCHEMA }, priceTotal: MONEY_SCHEMA } },
    customer: { type: 'object', properties: { id: { type: 'string' } } },
    products: { type: 'array' },
    variants: { type: 'array' },
  },
};

const QUOTE = defineOperation(`
  query RestCoverageQuote($storeId: ID!, $cart: StorefrontCartInput!) {
    storefrontCoverageQuote(storeId: $storeId, cart: $cart) { coverageProductId type price { amount currency } lineIds }
  }`);

const OFFER = defineOperation(`
  query RestCoverageOffer($storeId: ID!) {
    storefrontCoverageOffer(storeId: $storeId) { id type title description percentage minimumPrice maximumPrice }
  }`);

type Offer = { id: string | null; type: string; title: string; description: string; percentage: string; minimumPrice: string; maximumPrice: string };
type Quote = { coverageProductId: string; type: string; price: { amount: string; currency: string }; lineIds: string[] };
type CartLine = { id: string; quantity: number; product: { id: string }; priceTotal: { amount: string; currency: string } };
type CartBody = { cart: { lineItems: CartLine[]; priceTotal: { amount: string; currency: string } } };

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

const coverageInfoPage = (storeId: string) => `/v2.2/stores/${encodeURIComponent(storeId)}/coverage-info/page`;

function priceRule(offer: Offer): string {
  return `${offer.percentage}% of your order, at least ${offer.minimumPrice} and at most ${offer.maximumPrice}`;
}

async function quote(input: RouteInput) {
  const shape = checkShape(REQUEST_SCHEMA, input.body);
  if (shape.issues.length > 0) return validationProblem(shape.issues, input.instance);
  const { cart } = input.body as CartBody;
  const variables = {
    storeId: input.params.storeId,
    cart: {
      lines: cart.lineItems.map((line) => ({ id: line.id, quantity: line.quantity, productId: line.product.id, priceTotal: line.priceTotal })),
      priceTotal: cart.priceTotal,
    },
  };
  const outcome = await runOperation<{ storefrontCoverageQuote: Quote[] }>(QUOTE, variables, input.ctx);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance, { cart: 'cart' });
  return json(200, {
    coverageProducts: outcome.data.storefrontCoverageQuote.map((q) => ({
      id: q.coverageProductId,
      price: q.price,
      coverages: [{ type: q.type.toLowerCase(), lineItems: q.lineIds.map((id) => ({ id })) }],
    })),
  });
}

async function offerOf(input: RouteInput) {
  return runOperation<{ storefrontCoverageOffer: Offer[] }>(OFFER, { storeId: input.params.storeId }, input.ctx);
}

const BUTTONS_CSS = `.redo-checkout-buttons{display:flex;flex-direction:column;gap:8px;font:inherit}
.redo-coverage{display:flex;align-items:flex-start;gap:8px;cursor:pointer}
.redo-coverage-price{margin-left:auto;white-space:nowrap}
.redo-coverage-description{display:block;font-size:.85em;opacity:.8}
.redo-coverage-info{font-size:.85em}`;

async function checkoutButtons(input: RouteInput) {
  const outcome = await offerOf(input);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const controls = outcome.data.storefrontCoverageOffer.map((offer) => {
    const attributes = [
      `data-coverage-product-id="${escapeHtml(offer.id ?? '')}"`,
      `data-coverage-type="${offer.type.toLowerCase()}"`,
      `data-percentage="${escapeHtml(offer.percentage)}"`,
      `data-minimum-price="${escapeHtml(offer.minimumPrice)}"`,
      `data-maximum-price="${escapeHtml(offer.maximumPrice)}"`,
    ].join(' ');
    return (
      `<label class="redo-coverage" ${attributes}>` +
      `<input type="checkbox" class="redo-coverage-toggle" name="redo-coverage" value="${escapeHtml(offer.id ?? '')}">` +
      `<span><span class="redo-coverage-title">${escapeHtml(offer.title)}</span>` +
      `<span class="redo-coverage-description">${escapeHtml(offer.description)}</span></span>` +
      `<span class="redo-coverage-price">${escapeHtml(priceRule(offer))}</span>` +
      `</label>`
    );
  });
  const html =
    controls.length === 0
      ? ''
      : `<div class="redo-checkout-buttons" data-store-id="${escapeHtml(input.params.storeId)}">${controls.join('')}` +
        `<a class="redo-coverage-info" href="${escapeHtml(coverageInfoPage(input.params.storeId))}" target="_blank" rel="noopener">What is covered</a></div>`;
  return json(200, { html, css: BUTTONS_CSS });
}

async function coverageInfo(input: RouteInput) {
  const outcome = await offerOf(input);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  return { status: 302, headers: { location: coverageInfoPage(input.params.storeId) } };
}

async function coverageInfoPageRoute(input: RouteInput) {
  const outcome = await offerOf(input);
  if (!outcome.ok) return problemFromOutcome(outcome, input.instance);
  const offers = outcome.data.storefrontCoverageOffer;
  const sections =
    offers.length === 0
      ? '<p>This store offers no coverage at checkout.</p>'
      : offers
          .map((o) => `<section><h2>${escapeHtml(o.title)}</h2><p>${escapeHtml(o.description)}</p><p>Price: ${escapeHtml(priceRule(o))}.</p></section>`)
          .join('');
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Coverage</title></head><body><h1>Coverage at checkout</h1>${sections}</body></html>`;
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
    body,
  };
}

export const coverageRoutes: Route[] = [
  {
    method: 'POST',
    path: '/stores/{storeId}/coverage-products',
    scopes: [],
    public: true,
    doc: {
      summary: 'Coverage Products',
      tag: 'Coverage Products',
      description:
        "Prices the store's enabled coverage for the cart: a percentage of the eligible lines' merchandise value, clamped to the minimum and maximum, in the cart's currency. " +
        'A cart without eligible merchandise value gets no coverage; lines in another currency than the cart are refused. Public: no secret or scope.',
      requestBody: { required: true, schema: REQUEST_SCHEMA },
      responses: {
        '200': {
          description: 'One coverage product per enabled coverage type',
          schema: {
            type: 'object',
            required: ['coverageProducts'],
            properties: {
              coverageProducts: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'price', 'coverages'],
                  properties: { id: { type: 'string' }, price: MONEY_SCHEMA, coverages: { type: 'array' } },
                },
              },
            },
          },
        },
        '400': { description: 'A bad cart (shape, amounts, mixed currencies)', problem: true },
        '404': { description: 'No such store', problem: true },
      },
    },
    handle: quote,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/checkout-buttons-ui',
    scopes: [],
    public: true,
    doc: {
      summary: 'Checkout Buttons UI',
      tag: 'Checkout Buttons',
      description: "The opt-in control of each enabled coverage type with its price rule; merchant text is HTML-escaped. Empty `html` when none is enabled. Public.",
      responses: {
        '200': { description: 'HTML and CSS', schema: { type: 'object', required: ['html', 'css'], properties: { html: { type: 'string' }, css: { type: 'string' } } } },
        '404': { description: 'No such store', problem: true },
      },
    },
    handle: checkoutButtons,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/coverage-info',
    scopes: [],
    public: true,
    doc: {
      summary: 'Navigate to Coverage Info',
      tag: 'Coverage Info',
      description: "302 to this server's public page describing the store's coverage. Public.",
      responses: { '302': { description: 'Redirect to /v2.2/stores/{storeId}/coverage-info/page' }, '404': { description: 'No such store', problem: true } },
    },
    handle: coverageInfo,
  },
  {
    method: 'GET',
    path: '/stores/{storeId}/coverage-info/page',
    scopes: [],
    public: true,
    doc: {
      summary: 'Coverage info page',
      tag: 'Coverage Info',
      description: "Public HTML page of the store's enabled coverage (merchant text escaped).",
      responses: { '200': { description: 'The page', mediaType: 'text/html' }, '404': { description: 'No such store', problem: true } },
    },
    handle: coverageInfoPageRoute,
  },
];
