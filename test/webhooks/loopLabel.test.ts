// The LOOP webhook kind against a real receiver on 127.0.0.1: a label added to a return is
// delivered as the platform's label webhook (label.created, then label.updated when its status
// changes), with the documented fields; the return webhook's body is the Get Return Details body.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { warehouse } from '../compat/helpers.ts';
import { problems, validators } from '../support/loopDocumented.ts';
import { createTestOrder, insertTestReturn } from '../support/returnFixtures.ts';
import { createTestStore, graphql, startTestServer, type TestServer } from '../support/server.ts';
import { startReceiver, startTestDispatcher, waitFor, type Receiver } from './support.ts';

let server: TestServer;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;

beforeAll(async () => {
  server = await startTestServer({ webhooksAllowLoopback: true });
  receiver = await startReceiver();
  dispatcher = startTestDispatcher(server.db);
});
afterEach(() => {
  receiver.requests.length = 0;
});
afterAll(async () => {
  await dispatcher?.stop(100);
  await receiver?.close();
  await server?.close();
});

type Delivered = Record<string, unknown>;

function bodies(topic: string): Delivered[] {
  return receiver.requests.map((request) => request.body as unknown as Delivered).filter((body) => body.topic === topic);
}

it('delivers label.created when a label is added to a return and label.updated when its status changes', async () => {
  const store = await createTestStore(server.db);
  const saved = await graphql(server, store.secret, 'mutation($input: ReturnWebhookSaveInput!) { returnWebhookSave(input: $input) { subscription { topics } } }', {
    input: { url: `${receiver.url}/loop`, payload: 'LOOP' },
  });
  expect(saved.errors).toBeUndefined();
  const order = await createTestOrder(server.db, store.storeId);
  await server.db.prisma.order.update({ where: { id: order.id }, data: { externalId: '5444175757553' } });
  const ret = await insertTestReturn(server.db, store.storeId, order);

  const setLabel = (labelStatus: string | null) =>
    graphql(
      server,
      store.secret,
      'mutation($number: Int!, $labelStatus: String) { returnLabelSet(number: $number, label: { trackingNumber: "1Z999", carrier: "UPS" }, labelStatus: $labelStatus) { id } }',
      { number: ret.number, labelStatus },
    );
  expect((await setLabel(null)).errors).toBeUndefined();
  const [created] = await waitFor(() => bodies('label').length === 1 && bodies('label'), 'the label.created delivery');
  expect(validators.labelWebhook(created), problems(validators.labelWebhook)).toBe(true);
  expect(created).toMatchObject({
    topic: 'label',
    trigger: 'label.created',
    shop_id: store.storeId,
    id: ret.number,
    order_id: order.id,
    provider_order_id: 5444175757553,
    carrier: 'UPS',
    tracking_number: '1Z999',
    label_status: 'N/A',
    shipment_id: null,
  });
  const event = await server.db.prisma.event.findFirstOrThrow({ where: { subjectId: ret.id, topic: 'return_label.created' } });
  expect(created.label_updated_at).toBe(event.createdAt.toISOString());

  // The same label again changes nothing and announces nothing.
  expect((await setLabel(null)).errors).toBeUndefined();
  expect((await setLabel('in_transit')).errors).toBeUndefined();
  const labels = await waitFor(() => bodies('label').length === 2 && bodies('label'), 'the label.updated delivery');
  expect(validators.labelWebhook(labels[1]), problems(validators.labelWebhook)).toBe(true);
  expect(labels[1]).toMatchObject({ trigger: 'label.updated', label_status: 'in_transit', tracking_number: '1Z999' });
  expect(await server.db.prisma.event.count({ where: { subjectId: ret.id, topic: { startsWith: 'return_label.' } } })).toBe(2);
});

it('sends the return webhook with the Get Return Details body', async () => {
  const store = await createTestStore(server.db);
  await graphql(server, store.secret, 'mutation($input: ReturnWebhookSaveInput!) { returnWebhookSave(input: $input) { created } }', {
    input: { url: `${receiver.url}/loop`, payload: 'LOOP' },
  });
  const order = await createTestOrder(server.db, store.storeId);
  const ret = await insertTestReturn(server.db, store.storeId, order);
  expect((await warehouse(server, store.secret, 'POST', `/return/${ret.number}/note`, { body: { content: 'checked' } })).body).toBe(true);
  const [delivered] = await waitFor(() => bodies('return').length === 1 && bodies('return'), 'the return delivery');
  const details = (await warehouse(server, store.secret, 'GET', `/return/details?return_id=${ret.number}`)).body as Delivered;
  const { topic, trigger, shop_id: shopId, id, labels, ...returned } = delivered;
  expect({ topic, trigger, shop_id: shopId, id, labels }).toEqual({ topic: 'return', trigger: 'return.updated', shop_id: store.storeId, id: String(ret.number), labels: [] });
  const { id: detailsId, ...detailsRest } = details;
  expect(detailsId).toBe(ret.number);
  expect(returned).toEqual(detailsRest);
});
