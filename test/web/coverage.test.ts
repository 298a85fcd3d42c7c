// Settings -> Coverage in the dashboard (issue 14): the coverage types and the return
// processing fee are read and changed through the same GraphQL operations as v3, refusals
// come back on the page, merchant text is escaped, and a form needs the session's CSRF token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { signedIn, WebClient } from './helpers.ts';

let server: TestServer;
let store: TestStore;
let web: WebClient;

beforeAll(async () => {
  server = await startTestServer();
  store = await createTestStore(server.db);
  web = await signedIn(server, store.storeId);
});
afterAll(async () => server?.close());

const COVERAGE = '{ coverageProducts { type enabled title percentage minimumPrice maximumPrice eligibleProductIds } billingSettings { returnProcessingFee { amount } } }';

describe('Settings -> Coverage', () => {
  it('shows both coverage types and the fee, with labelled controls', async () => {
    const page = await web.get('/admin/settings/coverage');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Shipping protection');
    expect(page.text).toContain('Return shipping');
    expect(page.text).toContain('<label for="return-fee">');
  });

  it('saves a coverage type and the fee, as v3 then reads them', async () => {
    const csrf = WebClient.csrfOf((await web.get('/admin/settings/coverage')).text);
    const saved = await web.post('/admin/settings/coverage/shipping_failure', {
      csrf,
      enabled: 'true',
      title: 'Protect my <b>"order"</b>',
      description: 'Lost or damaged: replaced',
      percentage: '2.5',
      minimumPrice: '1',
      maximumPrice: '20',
      eligibleProductIds: 'sku-a, sku-b',
    });
    expect(saved.status).toBe(303);
    const after = await web.get(saved.headers.get('location')!);
    expect(after.text).toContain('Shipping protection saved.');
    expect(after.text).not.toContain('<b>"order"</b>');
    expect(after.text).toContain('Protect my &#60;b&#62;&#34;order&#34;&#60;/b&#62;');
    const fee = await web.post('/admin/settings/coverage/billing', { csrf, returnProcessingFee: '0.75' });
    expect((await web.get(fee.headers.get('location')!)).text).toContain('Return processing fee saved.');
    const read = await graphql(server, store.secret, COVERAGE);
    expect(read.data).toMatchObject({
      coverageProducts: expect.arrayContaining([
        { type: 'SHIPPING_FAILURE', enabled: true, title: 'Protect my <b>"order"</b>', percentage: '2.5', minimumPrice: '1', maximumPrice: '20', eligibleProductIds: ['sku-a', 'sku-b'] },
      ]),
      billingSettings: { returnProcessingFee: { amount: '0.75' } },
    });
  });

  it('shows a refused rule on the page and changes nothing', async () => {
    const before = await graphql(server, store.secret, COVERAGE);
    const csrf = WebClient.csrfOf((await web.get('/admin/settings/coverage')).text);
    const refused = await web.post('/admin/settings/coverage/shipping_failure', { csrf, enabled: 'true', minimumPrice: '30', maximumPrice: '5' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('role="alert"');
    // The refused form keeps what was typed.
    expect(refused.text).toContain('id="shipping_failure-minimum" name="minimumPrice" value="30"');
    const badFee = await web.post('/admin/settings/coverage/billing', { csrf, returnProcessingFee: '-1' });
    expect(badFee.status).toBe(400);
    expect((await graphql(server, store.secret, COVERAGE)).data).toEqual(before.data);
  });

  it('refuses a form without the session CSRF token and an unknown coverage type', async () => {
    const before = await graphql(server, store.secret, COVERAGE);
    const forged = await web.post('/admin/settings/coverage/return_shipping', { enabled: 'true', percentage: '9' });
    expect(forged.status).toBe(403);
    const csrf = WebClient.csrfOf((await web.get('/admin/settings/coverage')).text);
    expect((await web.post('/admin/settings/coverage/teleport', { csrf })).status).toBe(404);
    expect((await graphql(server, store.secret, COVERAGE)).data).toEqual(before.data);
  });
});
