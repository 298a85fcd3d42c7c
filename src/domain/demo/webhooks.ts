// The demo's webhook subscription and its delivery log. The subscription points at a
// loopback address nothing listens on and is disabled from the start, so the outbox never
// gives it a delivery and no dispatcher ever attempts one: its log is history recorded as
// finished (delivered at once, delivered after retries, discarded after the last attempt)
// for events the demo data really recorded.
import type { WebhookSubscription } from '../../generated/prisma/client.ts';
import type { Topic } from '../events.ts';
import { createWebhookSubscription, recordFinishedDeliveries, type AddressPolicy, type FinishedAttempt, type FinishedDelivery } from '../webhooks.ts';
import type { DemoContext } from './context.ts';
import type { Random } from './random.ts';

/** Port 9 (discard) on loopback: nothing listens there, and it is no address outside the machine. */
export const DEMO_WEBHOOK_URL = 'http://127.0.0.1:9/demo-webhook-receiver';

const TOPICS: Topic[] = ['order.created', 'return.created', 'return.updated', 'fulfillment.created'];

/** The demo receiver is named by its address: checking it never resolves a name, so no DNS query is made. */
const DEMO_POLICY: AddressPolicy = {
  allowLoopback: true,
  lookup: () => Promise.reject(new Error('the demo webhook receiver is named by address')),
};

/** Made disabled, before anything else: none of the demo's events is queued for it. */
export function createDemoSubscription(context: DemoContext): Promise<WebhookSubscription> {
  return createWebhookSubscription(context.tx, context.storeId, { url: DEMO_WEBHOOK_URL, secret: 'demo-receiver-token', topics: TOPICS, enabled: false }, DEMO_POLICY);
}

// As the dispatcher's default schedule (src/webhooks/dispatcher.ts DEFAULT_RETRY): 1 s after the
// first failure, doubling, 8 attempts in all, then discarded.
const FIRST_RETRY_MS = 1_000;
const MAX_ATTEMPTS = 8;
const TIMEOUT_MS = 10_000;

const TIMED_OUT = `timed out after ${TIMEOUT_MS} ms`;

const FAILURES: { responseStatus: number | null; error: string; durationMs: (random: Random) => number }[] = [
  { responseStatus: 503, error: 'HTTP 503: Service Unavailable', durationMs: (random) => random.int(20, 90) },
  { responseStatus: 502, error: 'HTTP 502: Bad Gateway', durationMs: (random) => random.int(20, 90) },
  { responseStatus: null, error: TIMED_OUT, durationMs: () => TIMEOUT_MS },
  { responseStatus: null, error: 'connect ECONNREFUSED 127.0.0.1:9', durationMs: (random) => random.int(1, 4) },
];

type Outcome = 'delivered' | 'retried' | 'discarded';

function attemptsFor(random: Random, outcome: Outcome, start: Date): FinishedAttempt[] {
  const failures = outcome === 'delivered' ? 0 : outcome === 'retried' ? random.int(1, 3) : MAX_ATTEMPTS;
  const attempts: FinishedAttempt[] = [];
  let at = start.getTime();
  // A discarded delivery's eight attempts fail fast (it would take minutes of timeouts otherwise).
  const failure = random.pick(outcome === 'discarded' ? FAILURES.filter((f) => f.error !== TIMED_OUT) : FAILURES);
  for (let n = 0; n < failures; n++) {
    const durationMs = failure.durationMs(random);
    attempts.push({ startedAt: new Date(at), durationMs, responseStatus: failure.responseStatus, error: failure.error });
    at += durationMs + FIRST_RETRY_MS * 2 ** n;
  }
  if (outcome !== 'discarded') attempts.push({ startedAt: new Date(at), durationMs: random.int(35, 420), responseStatus: random.pick([200, 200, 202, 204]), error: null });
  return attempts;
}

/**
 * The log: the events of the newest orders and returns and of some fulfillments, each
 * delivered at once, after one to three failed attempts, or discarded after eight.
 */
export async function seedWebhookHistory(context: DemoContext, subscription: WebhookSubscription, subjects: { orderIds: string[]; returnIds: string[]; fulfillmentIds: string[] }): Promise<void> {
  const { tx, storeId, random } = context;
  const wanted: { topic: Topic; subjectId: string }[] = [
    ...subjects.orderIds.map((subjectId) => ({ topic: 'order.created' as const, subjectId })),
    ...subjects.fulfillmentIds.map((subjectId) => ({ topic: 'fulfillment.created' as const, subjectId })),
    ...subjects.returnIds.map((subjectId) => ({ topic: 'return.created' as const, subjectId })),
  ];
  // One event of each of these topics per subject, so the choice does not depend on event ids.
  const events = await tx.event.findMany({
    where: { storeId, OR: TOPICS.filter((t) => t !== 'return.updated').map((topic) => ({ topic, subjectId: { in: wanted.filter((w) => w.topic === topic).map((w) => w.subjectId) } })) },
    select: { id: true, topic: true, subjectId: true, createdAt: true },
  });
  const outcomes: Outcome[] = wanted.map((_, i) => (i % 10 === 3 ? 'discarded' : i % 10 === 6 || i % 10 === 8 ? 'retried' : 'delivered'));
  const deliveries: FinishedDelivery[] = wanted.map((w, i) => {
    const event = events.find((e) => e.topic === w.topic && e.subjectId === w.subjectId);
    if (!event) throw new Error(`the demo recorded no ${w.topic} event for ${w.subjectId}`);
    // The dispatcher picks an event up a moment after it is recorded.
    const start = new Date(event.createdAt.getTime() + 150 + i * 40);
    const outcome = outcomes[i];
    return { eventId: event.id, status: outcome === 'discarded' ? 'DISCARDED' : 'DELIVERED', attempts: attemptsFor(random, outcome, start) };
  });
  await recordFinishedDeliveries(tx, storeId, subscription.id, deliveries);
}
