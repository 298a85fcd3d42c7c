// Returns of delivered orders, taken through the return state machine's operations: open
// ones (some with a shipping label from the start, some given one later, some with items
// taken off), flagged, processed with refunds, with store credit or both, processed item by
// item, exchanges, closed (rejected), reset back to open from rejected and from complete,
// and deleted, with notes, tags and labels along the way. The statuses no operation leads to
// (in_transit, delivered, needs_review, in_review) are not made: nothing in the domain moves
// a return there.
import type { Order, ReturnOutcome, ReturnType } from '../../generated/prisma/client.ts';
import { upsertReturnTag } from '../returnTags.ts';
import { createReturn, type CreateReturnItemInput, type ReturnLabelInput } from '../returns/creation.ts';
import { addReturnNote, deleteReturn, flagReturn, processReturn, processReturnItems, rejectReturn, removeReturnItems, resetReturn, setReturnLabel, setReturnTags } from '../returns/operations.ts';
import { DAY_MS, type DemoContext } from './context.ts';
import type { Random } from './random.ts';
import { lineId, type PlannedOrder } from './sales.ts';

const TAGS = [
  { name: 'damaged', pillTheme: 'DANGER' },
  { name: 'wrong-size', pillTheme: 'NEUTRAL_YELLOW' },
  { name: 'vip', pillTheme: 'PRIMARY' },
  { name: 'restock', pillTheme: 'SUCCESS' },
  { name: 'fraud-check', pillTheme: 'SOLID_RED' },
  { name: 'final-sale', pillTheme: 'GRAY_BLUE' },
];

const REASONS = [
  { reason: 'too_small', tag: 'wrong-size', comment: 'Runs a size small, I need the next one up.' },
  { reason: 'too_large', tag: 'wrong-size', comment: 'Too roomy in the shoulders.' },
  { reason: 'damaged', tag: 'damaged', comment: 'Seam came apart after the first wash.' },
  { reason: 'not_as_described', tag: null, comment: 'The colour is much darker than in the photos.' },
  { reason: 'changed_mind', tag: null, comment: null },
  { reason: 'other', tag: null, comment: 'Duplicate gift, we got two.' },
] as const;

const LABEL_CARRIERS = [
  { carrier: 'USPS', code: (random: Random) => `9202${String(random.int(0, 999_999_999)).padStart(9, '0')}${String(random.int(0, 999_999_999)).padStart(9, '0')}` },
  { carrier: 'UPS', code: (random: Random) => `1Z${random.int(100, 999)}RT${String(random.int(0, 99_999_999)).padStart(8, '0')}` },
];

/** What a scenario does with the return it made; `items` are the return's item ids in line order. */
interface Script {
  random: Random;
  items: string[];
  note(content: string): Promise<void>;
  tags(tags: string[]): Promise<void>;
  label(status: string | null): Promise<void>;
  process(): Promise<void>;
  processItems(reject: boolean[]): Promise<void>;
  flag(): Promise<void>;
  reject(): Promise<void>;
  reset(): Promise<void>;
  remove(itemIds: string[]): Promise<void>;
  delete(): Promise<void>;
}

interface Scenario {
  key: string;
  count: number;
  /** Order lines the return takes. */
  lines: 1 | 2;
  /** The outcome of each item, by its position. */
  outcomes: (random: Random) => ReturnOutcome[];
  type?: (index: number) => ReturnType;
  /** Bought with a label at creation. */
  labelled?: boolean;
  /** A note given at creation. */
  createNote?: string;
  run(script: Script, index: number): Promise<void>;
}

const refund = () => ['refund', 'refund'] as ReturnOutcome[];
const credit = () => ['credit', 'credit'] as ReturnOutcome[];
const refundOrCredit = (random: Random) => [random.chance(0.7) ? 'refund' : 'credit', random.chance(0.7) ? 'refund' : 'credit'] as ReturnOutcome[];

/** The scenarios and how many returns each makes; the first two are orders #1001 and #1002. */
export const SCENARIOS: Scenario[] = [
  {
    key: 'complete_refund',
    count: 14,
    lines: 1,
    outcomes: refund,
    async run(r, i) {
      await r.label('delivered');
      if (i % 3 === 0) await r.note('Inspected: unworn with tags, back to stock.');
      await r.tags(i % 2 === 0 ? ['restock'] : []);
      await r.process();
    },
  },
  {
    key: 'open_labelled',
    count: 6,
    lines: 1,
    outcomes: refundOrCredit,
    labelled: true,
    async run(r, i) {
      if (i % 2 === 0) await r.label('in_transit');
    },
  },
  {
    key: 'open',
    count: 8,
    lines: 1,
    outcomes: refundOrCredit,
    type: (i) => (i === 3 ? 'warranty' : i === 5 ? 'claim' : 'return'),
    createNote: 'Customer asked for a prepaid label by e-mail.',
    async run(r, i) {
      if (i % 2 === 1) await r.tags(['vip']);
    },
  },
  {
    key: 'open_label_later',
    count: 4,
    lines: 1,
    outcomes: refund,
    async run(r) {
      await r.label('pre_transit');
    },
  },
  {
    key: 'open_items_removed',
    count: 3,
    lines: 2,
    outcomes: refundOrCredit,
    async run(r) {
      await r.note('Customer decided to keep the second item.');
      await r.remove([r.items[1]]);
    },
  },
  {
    key: 'flagged',
    count: 5,
    lines: 1,
    outcomes: refund,
    async run(r, i) {
      await r.label('delivered');
      await r.flag();
      await r.note(i % 2 === 0 ? 'Returned item does not match the order: different SKU in the parcel.' : 'Box arrived empty; claim opened with the carrier.');
      await r.tags(i % 2 === 0 ? ['fraud-check'] : ['damaged']);
    },
  },
  {
    key: 'complete_credit',
    count: 7,
    lines: 1,
    outcomes: credit,
    async run(r, i) {
      await r.label('delivered');
      if (i % 2 === 0) await r.note('Store credit issued as requested.');
      await r.process();
    },
  },
  {
    key: 'complete_refund_and_credit',
    count: 3,
    lines: 2,
    outcomes: () => ['refund', 'credit'],
    async run(r) {
      await r.label('delivered');
      await r.note('Refund for the first item, store credit for the second.');
      await r.tags(['restock']);
      await r.process();
    },
  },
  {
    key: 'complete_item_rejected',
    count: 3,
    lines: 2,
    outcomes: refund,
    async run(r) {
      await r.label('delivered');
      await r.note('Second item arrived worn; not accepted.');
      await r.processItems([false, true]);
    },
  },
  {
    key: 'complete_exchange',
    count: 2,
    lines: 1,
    outcomes: () => ['exchange', 'exchange'],
    async run(r) {
      await r.label('delivered');
      await r.tags(['wrong-size']);
      await r.process();
    },
  },
  {
    key: 'flagged_then_complete',
    count: 3,
    lines: 1,
    outcomes: refund,
    async run(r) {
      await r.label('delivered');
      await r.flag();
      await r.note('Checked the photos from the warehouse: item is fine.');
      await r.process();
    },
  },
  {
    key: 'rejected',
    count: 5,
    lines: 1,
    outcomes: refund,
    async run(r) {
      await r.note('Outside the 30-day return window.');
      await r.tags(['final-sale']);
      await r.reject();
    },
  },
  {
    key: 'rejected_every_item',
    count: 1,
    lines: 2,
    outcomes: refund,
    async run(r) {
      await r.label('delivered');
      await r.note('Both items show heavy wear; return refused.');
      await r.processItems([true, true]);
    },
  },
  {
    key: 'reset_from_rejected',
    count: 2,
    lines: 1,
    outcomes: refund,
    async run(r) {
      await r.reject();
      await r.note('Closed by mistake; reopened.');
      await r.reset();
    },
  },
  {
    key: 'reset_from_complete',
    count: 2,
    lines: 1,
    outcomes: credit,
    async run(r) {
      await r.label('delivered');
      await r.process();
      await r.note('Processed before the parcel was checked; reset until it is.');
      await r.reset();
    },
  },
  {
    key: 'rejected_reset_complete',
    count: 2,
    lines: 1,
    outcomes: refund,
    async run(r) {
      await r.reject();
      await r.note('Customer sent proof of purchase date; reopening.');
      await r.reset();
      await r.tags(['vip']);
      await r.label('delivered');
      await r.note('Parcel checked: unworn, refunded.');
      await r.process();
    },
  },
  {
    key: 'deleted',
    count: 3,
    lines: 1,
    outcomes: refund,
    async run(r) {
      await r.note('Created twice by the customer; deleting this one.');
      await r.delete();
    },
  },
];

/** Returns of orders delivered at least a week ago (#1001 and #1002 among them), in a shuffled order of scenarios. */
export async function seedReturns(context: DemoContext, planned: PlannedOrder[], orders: Map<number, Order>): Promise<void> {
  const { tx, storeId, random } = context;
  for (const tag of TAGS) await upsertReturnTag(tx, storeId, tag);
  const delivered = planned.filter((order) => context.now.getTime() - order.placedAt.getTime() >= 7 * DAY_MS);
  const [first, second, ...rest] = delivered;
  const pool = random.sample(rest, rest.length);
  const runs = SCENARIOS.flatMap((scenario) => Array.from({ length: scenario.count }, (_, index) => ({ scenario, index })));
  // #1001 gets the first processed refund, #1002 the first labelled open return; the rest come shuffled.
  const firstRun = runs.find((run) => run.scenario.key === 'complete_refund' && run.index === 0)!;
  const secondRun = runs.find((run) => run.scenario.key === 'open_labelled' && run.index === 0)!;
  const others = runs.filter((run) => run !== firstRun && run !== secondRun);
  const ordered = [
    { ...firstRun, order: first },
    { ...secondRun, order: second },
    ...random.sample(others, others.length).map((run) => ({ ...run, order: take(pool, (o) => o.lines.length >= run.scenario.lines) })),
  ];
  for (const { scenario, index, order } of ordered) await runScenario(context, scenario, index, order, orders.get(order.number)!);
}

function take(pool: PlannedOrder[], fits: (order: PlannedOrder) => boolean): PlannedOrder {
  const at = pool.findIndex(fits);
  if (at < 0) throw new Error('the demo has too few delivered orders for its returns');
  return pool.splice(at, 1)[0];
}

function labelFor(random: Random): ReturnLabelInput {
  const { carrier, code } = random.pick(LABEL_CARRIERS);
  const trackingNumber = code(random);
  return {
    carrier,
    trackingNumber,
    trackingUrl: `https://tracking.example.com/${carrier.toLowerCase()}/${trackingNumber}`,
    postageLabelUrl: `https://labels.example.com/demo/${trackingNumber}.pdf`,
  };
}

async function runScenario(context: DemoContext, scenario: Scenario, index: number, planned: PlannedOrder, order: Order): Promise<void> {
  const { tx, storeId, random } = context;
  const outcomes = scenario.outcomes(random);
  const lines = planned.lines.slice(0, scenario.lines);
  const items: CreateReturnItemInput[] = lines.map((line, i) => {
    const why = random.pick(REASONS);
    return {
      lineItemId: lineId(planned, i),
      quantity: random.int(1, line.quantity),
      reason: why.reason,
      customerComment: random.chance(0.6) ? why.comment : null,
      outcome: outcomes[i],
    };
  });
  let label: ReturnLabelInput | undefined = scenario.labelled ? labelFor(random) : undefined;
  const { id } = await createReturn(tx, storeId, {
    orderId: order.id,
    type: scenario.type?.(index) ?? 'return',
    items,
    label,
    notes: scenario.createNote && index % 2 === 0 ? scenario.createNote : null,
  });
  const ref = { id };
  const itemIds = (await tx.returnItem.findMany({ where: { returnId: id }, orderBy: { orderLineItem: { position: 'asc' } }, select: { id: true } })).map((item) => item.id);
  const reasonTags = REASONS.flatMap((why) => (why.tag && items.some((item) => item.reason === why.reason) ? [why.tag] : []));
  const script: Script = {
    random,
    items: itemIds,
    note: async (content) => {
      await addReturnNote(tx, storeId, ref, content);
    },
    tags: async (tags) => {
      const all = [...new Set([...reasonTags, ...tags])];
      if (all.length > 0) await setReturnTags(tx, storeId, ref, all);
    },
    label: async (status) => {
      label ??= labelFor(random);
      await setReturnLabel(tx, storeId, ref, { ...label, labelStatus: status });
    },
    process: async () => {
      await processReturn(tx, storeId, ref);
    },
    processItems: async (reject) => {
      await processReturnItems(tx, storeId, ref, itemIds.map((itemId, i) => ({ itemId, reject: reject[i] ?? false })));
    },
    flag: async () => {
      await flagReturn(tx, storeId, ref);
    },
    reject: async () => {
      await rejectReturn(tx, storeId, ref);
    },
    reset: async () => {
      await resetReturn(tx, storeId, ref);
    },
    remove: async (ids) => {
      await removeReturnItems(tx, storeId, ref, ids);
    },
    delete: async () => {
      await deleteReturn(tx, storeId, ref);
    },
  };
  await scenario.run(script, index);
}
