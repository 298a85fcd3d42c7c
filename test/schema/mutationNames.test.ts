// v3 mutation names (issue 27): every mutation is named noun first (`orderCreate`), and each
// old verb-first name stays as a deprecated alias (`Use orderCreate`) with the same arguments,
// the same answer and the same resolver, so documents written for the old names keep working
// on /v3/graphql and on the /v3/rest routes SOFA makes of them.
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';
import { call, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

const VERB_FIRST = /^(create|update|upsert|delete|set|add|remove|process|flag|reject|reset|import|save|replay|revoke|sync|bulk|mark|record)(?=[A-Z]|$)/;

/** The renamed mutations of issue 27, old name -> new name. */
const RENAMED: Record<string, string> = {
  createOrder: 'orderCreate',
  deleteOrder: 'orderDelete',
  syncOrder: 'orderSync',
  upsertCustomer: 'customerUpsert',
  updateCustomerSubscriptions: 'customerSubscriptionsUpdate',
  createCustomEvent: 'customEventCreate',
  createCustomEvents: 'customEventsCreate',
  createReturn: 'returnCreate',
  processReturn: 'returnProcess',
  flagReturn: 'returnFlag',
  rejectReturn: 'returnReject',
  resetReturn: 'returnReset',
  processReturnItems: 'returnItemsProcess',
  deleteReturn: 'returnDelete',
  setReturnStatus: 'returnStatusSet',
  removeReturnItems: 'returnItemsRemove',
  addReturnNote: 'returnNoteAdd',
  setReturnTags: 'returnTagsSet',
  importReturns: 'returnsImport',
  upsertReturnTag: 'returnTagUpsert',
  deleteReturnTag: 'returnTagDelete',
  createWebhookSubscription: 'webhookSubscriptionCreate',
  updateWebhookSubscription: 'webhookSubscriptionUpdate',
  saveReturnWebhook: 'returnWebhookSave',
  replayWebhookSubscription: 'webhookSubscriptionReplay',
  deleteWebhookSubscription: 'webhookSubscriptionDelete',
  createApiClient: 'apiClientCreate',
  revokeApiClient: 'apiClientRevoke',
  createFulfillment: 'fulfillmentCreate',
  updateFulfillmentShipmentStatus: 'fulfillmentShipmentStatusUpdate',
  bulkUpsertProductFamilies: 'productFamiliesBulkUpsert',
};

/** Types named after an old mutation, old name -> the twin the new mutation uses. */
const TWINS: Record<string, string> = {
  CreateReturnInput: 'ReturnCreateInput',
  CreateReturnPayload: 'ReturnCreatePayload',
  CreateCustomEventPayload: 'CustomEventCreatePayload',
  CreateWebhookSubscriptionInput: 'WebhookSubscriptionCreateInput',
  UpdateWebhookSubscriptionInput: 'WebhookSubscriptionUpdateInput',
  SaveReturnWebhookInput: 'ReturnWebhookSaveInput',
  CreateApiClientPayload: 'ApiClientCreatePayload',
};

const mutations = Object.values(schema.getMutationType()!.getFields());
const mutation = (name: string) => schema.getMutationType()!.getFields()[name];

/** A type with its list and non-null wrappers, an old twin named as its new one. */
function shape(type: GraphQLType): string {
  if (isNonNullType(type)) return `${shape(type.ofType)}!`;
  if (isListType(type)) return `[${shape(type.ofType)}]`;
  return TWINS[type.name] ?? type.name;
}

/** What a named type is made of: its fields (with their types and arguments) or its values. */
function members(type: GraphQLNamedType): string[] {
  if (isObjectType(type) || isInterfaceType(type)) {
    return Object.values(type.getFields()).map((f) => `${f.name}(${f.args.map((a) => `${a.name}: ${shape(a.type)}`).join(', ')}): ${shape(f.type)}`);
  }
  if (isInputObjectType(type)) return Object.values(type.getFields()).map((f) => `${f.name}: ${shape(f.type)}`);
  if (isEnumType(type)) return type.getValues().map((v) => v.name);
  return [];
}

const argumentsOf = (field: GraphQLField<unknown, unknown>) => field.args.map((a: GraphQLArgument) => `${a.name}: ${shape(a.type)}`);

describe('the schema', () => {
  it('names no current mutation verb first', () => {
    const verbFirst = mutations.filter((f) => !f.deprecationReason && VERB_FIRST.test(f.name)).map((f) => f.name);
    expect(verbFirst, `verb-first mutations without deprecation: ${verbFirst.join(', ')}`).toEqual([]);
  });

  it('keeps every old name as a deprecated alias of its new one', () => {
    const aliases = Object.fromEntries(mutations.filter((f) => f.deprecationReason).map((f) => [f.name, f.deprecationReason]));
    expect(aliases).toEqual(Object.fromEntries(Object.entries(RENAMED).map(([old, renamed]) => [old, `Use ${renamed}`])));
  });

  it('gives each deprecated mutation a current replacement with the same arguments and answer', () => {
    for (const old of mutations.filter((f) => f.deprecationReason)) {
      const reason = /^Use (\w+)$/.exec(old.deprecationReason!);
      expect(reason, `${old.name}: reason "${old.deprecationReason}" is not "Use <mutation>"`).not.toBeNull();
      const current = mutation(reason![1]);
      expect(current, `${old.name}: ${reason![1]} does not exist`).toBeDefined();
      expect(current.deprecationReason, `${old.name}: ${current.name} is deprecated too`).toBeUndefined();
      expect(argumentsOf(old), `${old.name} arguments`).toEqual(argumentsOf(current));
      expect(shape(old.type), `${old.name} answer`).toBe(shape(current.type));
      expect(old.description, `${old.name} description`).toBe(current.description);
    }
  });

  it('builds each twinned type like its new one, and says what replaces it', () => {
    for (const [old, renamed] of Object.entries(TWINS)) {
      const [before, after] = [schema.getType(old), schema.getType(renamed)];
      expect(before, old).toBeDefined();
      expect(after, renamed).toBeDefined();
      expect(members(before!), old).toEqual(members(after!));
      const described = (type: GraphQLNamedType) =>
        isObjectType(type) || isInputObjectType(type) ? Object.values(type.getFields()).map((f) => [f.name, f.description]) : [];
      expect(described(before!), old).toEqual(described(after!));
      expect(before!.description, old).toContain(renamed);
      expect(after!.description, renamed).toBeTruthy();
    }
    // The old names are used by the aliases only, the new ones by the new mutations only.
    const users = (typeName: string) =>
      mutations
        .filter((f) => getNamedType(f.type).name === typeName || f.args.some((a) => getNamedType(a.type).name === typeName))
        .map((f) => f.name);
    for (const [old, renamed] of Object.entries(TWINS)) {
      expect(users(old).every((name) => name in RENAMED), `${old} is used by ${users(old).join(', ')}`).toBe(true);
      expect(users(renamed).some((name) => name in RENAMED), `${renamed} is used by ${users(renamed).join(', ')}`).toBe(false);
    }
  });

  it('describes every renamed mutation and each of its arguments', () => {
    for (const name of [...Object.keys(RENAMED), ...Object.values(RENAMED)]) {
      const field = mutation(name);
      expect(field.description?.length ?? 0, `${name} has no description`).toBeGreaterThan(40);
      for (const arg of field.args) expect(arg.description, `${name}(${arg.name}) has no description`).toBeTruthy();
    }
  });
});

/** The keys of an answer, recursively, with values replaced by their JSON type. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return value === null ? 'null' : typeof value;
}

describe('both names over HTTP', () => {
  let server: TestServer;
  let store: TestStore;

  beforeAll(async () => {
    server = await startTestServer();
    store = await createTestStore(server.db);
  });
  afterAll(async () => server?.close());

  async function ok(query: string, variables: Record<string, unknown> = {}) {
    const res = await graphql(server, store.secret, query, variables);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    return res.data!;
  }

  const ORDER = 'id externalId name lineItems { id externalId quantity }';
  const orderInput = (orderId: string) => ({
    orderId,
    createdAt: '2026-04-01T08:00:00Z',
    lineItems: [{ id: `${orderId}-1`, productId: 'p-1', title: 'Lamp', quantity: 2 }],
  });

  it('orderCreate and createOrder', async () => {
    const renamed = await ok(`mutation($input: OrderInput!) { orderCreate(input: $input) { ${ORDER} } }`, { input: orderInput('N-1') });
    const old = await ok(`mutation($input: OrderInput!) { createOrder(input: $input) { ${ORDER} } }`, { input: orderInput('N-2') });
    expect(renamed.orderCreate).toMatchObject({ externalId: 'N-1', lineItems: [{ externalId: 'N-1-1', quantity: 2 }] });
    expect(old.createOrder).toMatchObject({ externalId: 'N-2', lineItems: [{ externalId: 'N-2-1', quantity: 2 }] });
    expect(shapeOf(old.createOrder)).toEqual(shapeOf(renamed.orderCreate));
  });

  it('customerUpsert and upsertCustomer', async () => {
    const query = (field: string) => `mutation($input: CustomerUpsertInput!) { ${field}(input: $input) { created customer { id email firstName } } }`;
    const renamed = await ok(query('customerUpsert'), { input: { email: 'New@Example.com', firstName: 'Nia' } });
    const old = await ok(query('upsertCustomer'), { input: { email: 'new@example.com', firstName: 'Nina' } });
    expect(renamed.customerUpsert).toMatchObject({ created: true, customer: { email: 'new@example.com', firstName: 'Nia' } });
    // The same customer: one resolver behind both names.
    expect(old.upsertCustomer).toEqual({ created: false, customer: { id: (renamed.customerUpsert as { customer: { id: string } }).customer.id, email: 'new@example.com', firstName: 'Nina' } });
  });

  it('returnCreate and createReturn (with their input and payload type names), returnProcess and processReturn', async () => {
    const order = (await ok(`mutation($input: OrderInput!) { orderCreate(input: $input) { ${ORDER} } }`, { input: orderInput('R-1') })).orderCreate as {
      id: string;
      lineItems: { id: string }[];
    };
    const input = { orderId: order.id, items: [{ lineItemId: order.lineItems[0].id, quantity: 1, reason: 'Too small' }] };
    const RETURN = 'id number status items { quantity reason }';
    const renamed = await ok(
      `mutation($input: ReturnCreateInput!) { returnCreate(input: $input, idempotencyKey: "k-new") { ... on ReturnCreatePayload { replayed return { ${RETURN} } } } }`,
      { input },
    );
    const old = await ok(
      `mutation($input: CreateReturnInput!) { createReturn(input: $input, idempotencyKey: "k-old") { ... on CreateReturnPayload { replayed return { ${RETURN} } } } }`,
      { input },
    );
    type Created = { replayed: boolean; return: { id: string; status: string } };
    const [fresh, aliased] = [renamed.returnCreate as Created, old.createReturn as Created];
    expect(fresh).toMatchObject({ replayed: false, return: { status: 'OPEN', items: [{ quantity: 1, reason: 'Too small' }] } });
    expect(aliased).toMatchObject({ replayed: false, return: { status: 'OPEN', items: [{ quantity: 1, reason: 'Too small' }] } });
    expect(aliased.return.id).not.toBe(fresh.return.id);
    expect(shapeOf(aliased)).toEqual(shapeOf(fresh));
    // The idempotency key of one name replays under the other: the same resolver and store of keys.
    const replay = await ok(`mutation($input: CreateReturnInput!) { createReturn(input: $input, idempotencyKey: "k-new") { replayed return { id } } }`, { input });
    expect(replay.createReturn).toEqual({ replayed: true, return: { id: fresh.return.id } });

    const processed = await ok(`mutation($id: ID) { returnProcess(id: $id) { id status } }`, { id: fresh.return.id });
    const processedOld = await ok(`mutation($id: ID) { processReturn(id: $id) { id status } }`, { id: aliased.return.id });
    expect(processed.returnProcess).toEqual({ id: fresh.return.id, status: 'COMPLETE' });
    expect(processedOld.processReturn).toEqual({ id: aliased.return.id, status: 'COMPLETE' });
    // Both names refuse alike too: a complete return cannot be processed again.
    for (const field of ['returnProcess', 'processReturn']) {
      const again = await graphql(server, store.secret, `mutation($id: ID) { ${field}(id: $id) { id } }`, { id: fresh.return.id });
      expect(again.errors?.map((e) => e.extensions?.code), field).toEqual(['UNPROCESSABLE']);
    }
  });

  it('webhookSubscriptionCreate and createWebhookSubscription', async () => {
    const FIELDS = 'url topics enabled hasSecret payload';
    const renamed = await ok(
      `mutation($input: WebhookSubscriptionCreateInput!) { webhookSubscriptionCreate(input: $input) { id ${FIELDS} } }`,
      { input: { url: 'https://93.184.215.14/new', topics: ['order.created'] } },
    );
    const old = await ok(
      `mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { id ${FIELDS} } }`,
      { input: { url: 'https://93.184.215.14/old', topics: ['order.created'] } },
    );
    expect(renamed.webhookSubscriptionCreate).toMatchObject({ id: expect.stringMatching(/^whk_/), url: 'https://93.184.215.14/new', enabled: true, payload: 'NATIVE' });
    expect(old.createWebhookSubscription).toMatchObject({ id: expect.stringMatching(/^whk_/), url: 'https://93.184.215.14/old', enabled: true, payload: 'NATIVE' });
    expect(shapeOf(old.createWebhookSubscription)).toEqual(shapeOf(renamed.webhookSubscriptionCreate));
  });

  it('serves the new /v3/rest route and the old one, marked deprecated in its OpenAPI document', async () => {
    const renamed = await call(server, 'POST', '/v3/rest/customer-upsert', { secret: store.secret, body: { input: { email: 'rest@example.com' } } });
    const old = await call(server, 'POST', '/v3/rest/upsert-customer', { secret: store.secret, body: { input: { email: 'rest@example.com', firstName: 'Rae' } } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(old.status, old.text).toBe(200);
    expect(renamed.body).toMatchObject({ created: true, customer: { email: 'rest@example.com' } });
    expect(old.body).toMatchObject({ created: false, customer: { email: 'rest@example.com', firstName: 'Rae' } });
    expect(Object.keys(old.body as object).sort()).toEqual(Object.keys(renamed.body as object).sort());

    const doc = (await call(server, 'GET', '/v3/rest/openapi.json')).body as { paths: Record<string, Record<string, { deprecated?: boolean; description?: string }>> };
    for (const [old, renamed] of Object.entries(RENAMED)) {
      const route = (name: string) => `/${name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
      expect(doc.paths[route(renamed)]?.post, route(renamed)).toBeDefined();
      expect(doc.paths[route(renamed)].post.deprecated, route(renamed)).toBeUndefined();
      expect(doc.paths[route(old)]?.post, route(old)).toMatchObject({ deprecated: true });
      expect(doc.paths[route(old)].post.description, route(old)).toContain(`POST /v3/rest${route(renamed)}`);
    }
  });
});
