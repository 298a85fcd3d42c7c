// The shopper portal after an erasure (issue 42): an erased order's e-mail reads "[redacted]",
// and typing that marker must not open it, after a person's erasure or a whole store's; the
// answer is the one a wrong e-mail gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseCustomer, eraseStoreCustomerData } from '../../src/domain/privacy/erasure.ts';
import { REDACTED } from '../../src/domain/privacy/personalData.ts';
import { createTestOrder } from '../support/returnFixtures.ts';
import { createTestStore, startTestServer, type TestServer } from '../support/server.ts';
import { WebClient } from './helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

/** What the page tells the shopper went wrong. */
const alertOf = (page: string) => /<div class="error" role="alert">([^<]*)<\/div>/.exec(page)?.[1];

/** The portal's answer to an order number and e-mail typed into its lookup form. */
async function lookUp(storeId: string, order: string, email: string) {
  const shopper = new WebClient(server);
  const form = await shopper.get(`/portal/${storeId}`);
  return shopper.post(`/portal/${storeId}/lookup`, { csrf: WebClient.csrfOf(form.text), order, email });
}

describe('the shopper portal after an erasure', () => {
  it("opens no erased order, whatever is typed, and answers as it answers a wrong e-mail", async () => {
    const store = await createTestStore(server.db, { name: 'Erasing store' });
    const erased = await createTestOrder(server.db, store.storeId, { customerEmail: 'perpetua.vance@example.com' });
    const kept = await createTestOrder(server.db, store.storeId, { customerEmail: 'kept.shopper@example.com' });
    const wrongEmail = await lookUp(store.storeId, erased.name, 'someone.else@example.com');
    expect(wrongEmail.status).toBe(404);
    expect(alertOf(wrongEmail.text)).toMatch(/could not find an order/);
    expect((await lookUp(store.storeId, erased.name, ' Perpetua.Vance@Example.com ')).status).toBe(303);

    await eraseCustomer(server.db.prisma, store.storeId, { email: 'perpetua.vance@example.com' });
    for (const email of [REDACTED, REDACTED.toUpperCase(), ` ${REDACTED} `, 'perpetua.vance@example.com']) {
      const answer = await lookUp(store.storeId, erased.name, email);
      expect(answer.status).toBe(404);
      expect(alertOf(answer.text)).toBe(alertOf(wrongEmail.text));
    }
    expect((await lookUp(store.storeId, kept.name, 'kept.shopper@example.com')).status).toBe(303);

    await eraseStoreCustomerData(server.db.prisma, store.storeId);
    for (const order of [erased, kept]) expect((await lookUp(store.storeId, order.name, REDACTED)).status).toBe(404);
  });
});
