// Customers on the v3 GraphQL door: the upsertCustomer mutation (same rules as REST,
// errors as extensions.code), customer(email:), the keyset-paginated customers list with
// its nested custom fields, node(id:), scopes and store isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiClient, createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';

let server: TestServer;
let store: TestStore;
let other: TestStore;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  other = await createTestStore(server.db, { name: 'Other' });
});
afterAll(async () => server?.close());

const UPSERT = `mutation ($input: CustomerUpsertInput!) {
  upsertCustomer(input: $input) {
    created
    customer { id email firstName lastName name phoneNumber phoneNumbers location { city countryCode latitude } customFields createdAt updatedAt }
  }
}`;

type Payload = { created: boolean; customer: Record<string, unknown> & { id: string } };

async function upsert(input: Record<string, unknown>, secret = store.secret): Promise<Payload> {
  const res = await graphql(server, secret, UPSERT, { input });
  expect(res.errors).toBeUndefined();
  return (res.data as { upsertCustomer: Payload }).upsertCustomer;
}

describe('upsertCustomer', () => {
  it('creates, then updates, and returns the customer', async () => {
    const first = await upsert({ email: 'V3@Example.com', firstName: 'Vee', phoneNumber: '+14155550000', location: { city: 'Austin', countryCode: 'us' }, customFields: { level: 3, beta: true } });
    expect(first.created).toBe(true);
    expect(first.customer).toMatchObject({
      email: 'v3@example.com',
      name: 'Vee',
      phoneNumber: '+14155550000',
      location: { city: 'Austin', countryCode: 'US', latitude: null },
      customFields: { level: 3, beta: true },
    });
    const second = await upsert({ email: 'v3@example.com', lastName: 'Three', phoneNumber: '+14155550001', customFields: { note: 'hi' } });
    expect(second).toMatchObject({
      created: false,
      customer: { id: first.customer.id, name: 'Vee Three', phoneNumber: '+14155550001', phoneNumbers: ['+14155550000', '+14155550001'], customFields: { level: 3, beta: true, note: 'hi' } },
    });
  });

  it('answers invalid input with BAD_USER_INPUT and the issues', async () => {
    const res = await graphql(server, store.secret, UPSERT, { input: { email: 'nope', customFields: { x: [1] } } });
    expect(res.data).toBeNull();
    expect(res.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [
        { path: 'email', message: expect.any(String) },
        { path: 'customFields.x', message: expect.any(String) },
      ],
    });
  });

  it('needs customers_write; a writer may read back what it wrote', async () => {
    const reader = await addApiClient(server.db, store.storeId, ['customers_read']);
    const refused = await graphql(server, reader.secret, UPSERT, { input: { email: 'scoped@example.com' } });
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const writer = await addApiClient(server.db, store.storeId, ['customers_write']);
    expect((await upsert({ email: 'scoped@example.com' }, writer.secret)).created).toBe(true);
  });
});

describe('reading customers', () => {
  it('customer(email:) finds a customer case-insensitively, null when absent or in another store', async () => {
    await upsert({ email: 'reader@example.com', firstName: 'Rea' });
    await upsert({ email: 'elsewhere@example.com' }, other.secret);
    const query = `query ($email: String!) { customer(email: $email) { email firstName } }`;
    expect((await graphql(server, store.secret, query, { email: 'READER@example.com' })).data).toEqual({ customer: { email: 'reader@example.com', firstName: 'Rea' } });
    expect((await graphql(server, store.secret, query, { email: 'absent@example.com' })).data).toEqual({ customer: null });
    expect((await graphql(server, store.secret, query, { email: 'elsewhere@example.com' })).data).toEqual({ customer: null });
    expect((await graphql(server, store.secret, query, { email: 'bad' })).errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('customer(email:) and customers need customers_read', async () => {
    const writer = await addApiClient(server.db, store.storeId, ['customers_write']);
    for (const query of ['{ customer(email: "reader@example.com") { id } }', '{ customers(first: 1) { nodes { id } } }']) {
      expect((await graphql(server, writer.secret, query)).errors?.[0].extensions?.code).toBe('FORBIDDEN');
    }
  });

  it('node(id:) resolves a customer of the store only', async () => {
    const mine = (await upsert({ email: 'node@example.com' })).customer.id;
    const theirs = (await upsert({ email: 'node@example.com' }, other.secret)).customer.id;
    const query = `query ($id: ID!) { node(id: $id) { id ... on Customer { email } } }`;
    expect((await graphql(server, store.secret, query, { id: mine })).data).toEqual({ node: { id: mine, email: 'node@example.com' } });
    expect((await graphql(server, store.secret, query, { id: theirs })).data).toEqual({ node: null });
  });

  it('customers pages newest update first, without repeats or gaps, with custom fields of each node', async () => {
    const fresh = await createTestStore(server.db, { name: 'Paged' });
    for (let i = 0; i < 7; i++) await upsert({ email: `page${i}@example.com`, customFields: { index: i } }, fresh.secret);
    await upsert({ email: 'page0@example.com', firstName: 'Touched' }, fresh.secret);
    const query = `query ($after: String) {
      customers(first: 3, after: $after) { pageInfo { hasNextPage endCursor } edges { cursor node { email customFields } } }
    }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 5; pages++) {
      const res = await graphql(server, fresh.secret, query, { after });
      expect(res.errors).toBeUndefined();
      const page = (res.data as { customers: { pageInfo: { hasNextPage: boolean; endCursor: string }; edges: { node: { email: string; customFields: { index: number } } }[] } }).customers;
      for (const { node } of page.edges) {
        seen.push(node.email);
        expect(node.customFields.index).toBe(Number(node.email.slice(4, 5)));
      }
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(['page0@example.com', 'page6@example.com', 'page5@example.com', 'page4@example.com', 'page3@example.com', 'page2@example.com', 'page1@example.com']);
  });

  it('customers filters by updatedAt and enforces the page limit', async () => {
    const fresh = await createTestStore(server.db, { name: 'Filtered' });
    const old = await upsert({ email: 'old@example.com' }, fresh.secret);
    const cut = new Date(Date.parse(old.customer.updatedAt as string) + 1).toISOString();
    // The next customer must be updated in a later millisecond than the cut.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await upsert({ email: 'new@example.com' }, fresh.secret);
    const emails = async (args: string) => {
      const res = await graphql(server, fresh.secret, `{ customers(first: 10, ${args}) { nodes { email } } }`);
      return (res.data as { customers: { nodes: { email: string }[] } }).customers.nodes.map((n) => n.email);
    };
    expect(await emails(`updatedAtMin: "${cut}"`)).toEqual(['new@example.com']);
    expect(await emails(`updatedAtMax: "${cut}"`)).toEqual(['old@example.com']);
    const tooMany = await graphql(server, fresh.secret, '{ customers(first: 101) { nodes { id } } }');
    expect(tooMany.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});
