// Bulk actions on returns (the dashboard's returns list): one action (flag, close, process,
// tag, note) on up to MAX_BULK_RETURNS returns, each return in its own transaction through the
// same operation as one at a time, so a return the action does not apply to is refused alone
// and the others go ahead. The action, the returns it names and what became of each are kept
// in a row under the key the caller gives: the same key again finds that row and acts on
// nothing. Starting an action only records the row (inside the request's transaction when it
// has one: an Idempotency-Key's); the returns are acted on by the background work of whichever
// instance claims the row (ReturnBulkActionWorker: FOR UPDATE SKIP LOCKED and a lease, as the
// webhook dispatcher claims deliveries). Each return's result is recorded in the transaction of
// the operation on it, by the lease holder only, so an action left by a stopped instance is
// resumed by another (or the same one restarted) and no return is acted on twice.
import { EventEmitter } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import { Prisma } from '../generated/prisma/client.ts';
import type { Reads } from '../db/reads/reader.ts';
import { joinedTransaction } from '../db/requestTransaction.ts';
import { currentScope, inRequestScope, type Actor } from '../observability/requestScope.ts';
import { Invalid, isDomainError, isUniqueViolation } from './errors.ts';
import { newId } from './ids.ts';
import { MAX_NOTE_LENGTH } from './returns/creation.ts';
import { returnListWhere, type ReturnListFilters } from './returns/lists.ts';
import { addReturnNote, addReturnTag, flagReturn, processReturn, rejectReturn } from './returns/operations.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

/** The most returns one bulk action acts on: a larger selection is refused, not cut short. */
export const MAX_BULK_RETURNS = 1000;

export const BULK_ACTIONS = ['flag', 'close', 'process', 'tag', 'note'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

const MAX_KEY_LENGTH = 100;
/** A running action whose row has not moved for this long was left by an instance that stopped, and waits for another to resume it. */
const STALLED_AFTER_MS = 60_000;

export interface BulkActionInput {
  /** Names the action: the same key again finds it instead of acting twice. */
  key: string;
  action: BulkAction;
  /** The returns chosen one by one (svc_ids)… */
  returnIds?: readonly string[] | null;
  /** …or every return the list's filters match. */
  matching?: ReturnListFilters | null;
  /** The tag to add (tag) or the note to write (note). */
  argument?: string | null;
}

export interface BulkActionOutcome {
  id: string;
  number: number;
  /** Why the operation refused this return (it names the return by number); absent when it was done. */
  refused?: string;
}

export interface ReturnBulkActionState {
  key: string;
  action: BulkAction;
  argument: string | null;
  /** Returns the action names. */
  total: number;
  /** What became of each return acted on so far, in the order they were acted on. */
  results: BulkActionOutcome[];
  /** running, done, or stalled: left by an instance that stopped, the returns not reached not yet acted on, until an instance resumes it. */
  state: 'running' | 'done' | 'stalled';
  createdAt: Date;
  updatedAt: Date;
}

type Row = Prisma.ReturnBulkActionGetPayload<object>;

function stateOf(row: Row): ReturnBulkActionState {
  const results = row.results as unknown as BulkActionOutcome[];
  const stalled = row.state === 'running' && Date.now() - row.updatedAt.getTime() > STALLED_AFTER_MS;
  return {
    key: row.key,
    action: row.action as BulkAction,
    argument: row.argument,
    total: row.returnIds.length,
    results,
    state: stalled ? 'stalled' : (row.state as 'running' | 'done'),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function findReturnBulkAction(db: Db, storeId: string, key: string): Promise<ReturnBulkActionState | null> {
  const row = await db.returnBulkAction.findUnique({ where: { storeId_key: { storeId, key } } });
  return row ? stateOf(row) : null;
}

async function checkInput(db: Db, storeId: string, input: BulkActionInput): Promise<string | null> {
  if (input.key.length < 1 || input.key.length > MAX_KEY_LENGTH) throw new Invalid(`key must be 1 to ${MAX_KEY_LENGTH} characters`, { path: 'key' });
  if (!BULK_ACTIONS.includes(input.action)) throw new Invalid(`action must be one of ${BULK_ACTIONS.join(', ')}`, { path: 'action' });
  if ((input.returnIds == null) === (input.matching == null)) throw new Invalid('name the returns either one by one (ids) or by a search (matching), not both', { path: 'ids' });
  const argument = input.argument?.trim() || null;
  if (input.action === 'note' && (argument === null || argument.length > MAX_NOTE_LENGTH)) {
    throw new Invalid(`a note must be 1 to ${MAX_NOTE_LENGTH} characters`, { path: 'argument' });
  }
  if (input.action === 'tag') {
    if (argument === null) throw new Invalid('name the tag to add', { path: 'argument' });
    if (!(await db.returnTag.findUnique({ where: { storeId_name: { storeId, name: argument } } }))) {
      throw new Invalid(`return tag "${argument}" is not defined; create it first`, { path: 'argument' });
    }
  }
  return input.action === 'tag' || input.action === 'note' ? argument : null;
}

const TOO_MANY = (found: string) =>
  `a bulk action acts on at most ${MAX_BULK_RETURNS.toLocaleString('en-US')} returns and ${found}: narrow the search or choose fewer`;

/** The returns the input names, oldest first; refused beyond MAX_BULK_RETURNS or when none. */
async function chosenReturns(reads: Reads, storeId: string, input: BulkActionInput): Promise<{ id: string; number: number }[]> {
  let chosen: { id: string; number: number }[];
  if (input.returnIds) {
    const ids = [...new Set(input.returnIds)];
    if (ids.length > MAX_BULK_RETURNS) throw new Invalid(TOO_MANY(`${ids.length.toLocaleString('en-US')} were chosen`), { path: 'ids' });
    chosen = await reads.return.findMany({ where: { storeId, id: { in: ids } }, select: { id: true, number: true }, orderBy: { number: 'asc' } });
    if (chosen.length < ids.length) throw new Invalid('some of the returns chosen are not returns of this store', { path: 'ids' });
  } else {
    chosen = await reads.return.findMany({
      where: returnListWhere(storeId, input.matching ?? {}),
      select: { id: true, number: true },
      orderBy: { number: 'asc' },
      take: MAX_BULK_RETURNS + 1,
    });
    if (chosen.length > MAX_BULK_RETURNS) throw new Invalid(TOO_MANY(`the search matches more`), { path: 'matching' });
  }
  if (chosen.length === 0) throw new Invalid('choose at least one return', { path: input.returnIds ? 'ids' : 'matching' });
  return chosen;
}

function operate(db: Db | Tx, storeId: string, action: BulkAction, argument: string | null, id: string): Promise<unknown> {
  const ref = { id };
  switch (action) {
    case 'flag':
      return flagReturn(db, storeId, ref);
    case 'close':
      return rejectReturn(db, storeId, ref);
    case 'process':
      return processReturn(db, storeId, ref);
    case 'tag':
      return addReturnTag(db, storeId, ref, argument!);
    case 'note':
      return addReturnNote(db, storeId, ref, argument!);
  }
}

const NOW = `(now() AT TIME ZONE 'UTC')`;

/** Thrown inside a return's transaction when this instance no longer holds the action: the operation is rolled back. */
class LeaseLost extends Error {}

/** The instances' wake-up call when an action is recorded outside a request's transaction: it need not wait for their next look. */
const recorded = new EventEmitter();

/**
 * Records what became of one return, in the transaction that acted on it (or, for a refusal, which
 * wrote nothing, on its own); only while `instanceId` holds the lease, which each result renews.
 * The last result finishes the action and frees it; a note's words are then dropped from it (they
 * live on in each return's note, which a shopper's erasure treats).
 */
async function recordResult(db: Db | Tx, actionId: string, instanceId: string, leaseMs: number, result: BulkActionOutcome): Promise<void> {
  const changed = await db.$executeRawUnsafe(
    `UPDATE "ReturnBulkAction" SET
       results = results || $2::jsonb,
       "updatedAt" = ${NOW},
       state = CASE WHEN jsonb_array_length(results) + 1 >= cardinality("returnIds") THEN 'done' ELSE state END,
       argument = CASE WHEN jsonb_array_length(results) + 1 >= cardinality("returnIds") AND action = 'note' THEN NULL ELSE argument END,
       "leasedBy" = CASE WHEN jsonb_array_length(results) + 1 >= cardinality("returnIds") THEN NULL ELSE "leasedBy" END,
       "leasedUntil" = CASE WHEN jsonb_array_length(results) + 1 >= cardinality("returnIds") THEN NULL ELSE ${NOW} + $4 * interval '1 millisecond' END
     WHERE id = $1 AND "leasedBy" = $3 AND state = 'running'`,
    actionId,
    JSON.stringify([result]),
    instanceId,
    leaseMs,
  );
  if (changed === 0) throw new LeaseLost(`bulk action ${actionId} is no longer held by ${instanceId}`);
}

/** Who started an action, as the audit trail names them: each return it changes is audited as theirs. */
interface StartedBy {
  door?: string;
  actor?: Actor;
}

/**
 * Records the bulk action `input` describes, or finds the one recorded with its key (which then
 * acts on nothing more). The returns are acted on by the instances' background work. Inside a
 * request's transaction (an Idempotency-Key) the answer comes at once, the action running, since
 * no instance can see it before that transaction commits; otherwise once the action is done or
 * `waitMs` has passed, whichever is first: a small selection comes back with its outcome, a large
 * one while it runs.
 */
export async function startReturnBulkAction(
  db: Db,
  reads: Reads,
  storeId: string,
  input: BulkActionInput,
  { waitMs = 2_000 }: { waitMs?: number } = {},
): Promise<ReturnBulkActionState> {
  const earlier = await findReturnBulkAction(db, storeId, input.key);
  if (earlier) return earlier;
  const argument = await checkInput(db, storeId, input);
  const returns = await chosenReturns(reads, storeId, input);
  const scope = currentScope();
  const startedBy: StartedBy = { door: scope?.door, actor: scope?.actor };
  let row: Row;
  try {
    row = await db.returnBulkAction.create({
      data: {
        id: newId('returnBulkAction'),
        storeId,
        key: input.key,
        action: input.action,
        argument,
        returnIds: returns.map((ret) => ret.id),
        startedBy: startedBy as Prisma.InputJsonObject,
      },
    });
  } catch (error) {
    // The same key sent twice at once: the other recorded the action.
    if (isUniqueViolation(error)) return (await findReturnBulkAction(db, storeId, input.key))!;
    throw error;
  }
  if (joinedTransaction()) return stateOf(row);
  recorded.emit('recorded');
  const deadline = Date.now() + waitMs;
  while (row.state === 'running' && Date.now() < deadline) {
    await setTimeout(PROGRESS_POLL_MS);
    row = (await db.returnBulkAction.findUnique({ where: { id: row.id } })) ?? row;
  }
  return stateOf(row);
}

/** How often a caller waiting for a small action to finish reads it again. */
const PROGRESS_POLL_MS = 100;

export interface ReturnBulkActionWorkerOptions {
  db: Db;
  /** Names this instance in `leasedBy`. */
  instanceId: string;
  /** How long a claim is held without a result recorded; an instance gone for this long is resumed after. */
  leaseMs: number;
  /** How often to look for an action to claim when idle (an action recorded by this instance wakes it at once). */
  pollIntervalMs?: number;
  /** Told of a failure that is no refusal; the action is then left to its lease and claimed again. */
  onError?: (error: unknown, actionId: string) => void;
}

/**
 * The background work that acts on recorded bulk actions, one at a time per instance: claims the
 * oldest running action whose lease lapsed (or that has none), acts on each of its returns not yet
 * in its results, and records each result with the operation, renewing the lease.
 */
export class ReturnBulkActionWorker {
  private readonly db: Db;
  private readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly onError: (error: unknown, actionId: string) => void;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly onRecorded = () => this.wake?.();

  constructor(options: ReturnBulkActionWorkerOptions) {
    this.db = options.db;
    this.instanceId = options.instanceId;
    this.leaseMs = options.leaseMs;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.onError = options.onError ?? (() => {});
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    recorded.on('recorded', this.onRecorded);
    this.loop = this.work();
  }

  /** Stops after the return being acted on; the action's lease then lapses and it is resumed later. */
  async stop(): Promise<void> {
    this.running = false;
    recorded.off('recorded', this.onRecorded);
    this.wake?.();
    await this.loop;
  }

  private async work(): Promise<void> {
    while (this.running) {
      let actionId: string | undefined;
      try {
        actionId = await this.claim();
        if (actionId) await this.run(actionId);
      } catch (error) {
        this.onError(error, actionId ?? '');
      }
      if (!actionId && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = globalThis.setTimeout(done, this.pollIntervalMs);
      function done() {
        globalThis.clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Leases the oldest running action no live instance holds; undefined when there is none. */
  private async claim(): Promise<string | undefined> {
    const rows = await this.db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE "ReturnBulkAction" SET "leasedBy" = $1, "leasedUntil" = ${NOW} + $2 * interval '1 millisecond'
       WHERE id = (
         SELECT id FROM "ReturnBulkAction"
         WHERE state = 'running' AND ("leasedUntil" IS NULL OR "leasedUntil" <= ${NOW})
         ORDER BY "leasedUntil" NULLS FIRST, "createdAt"
         LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      this.instanceId,
      this.leaseMs,
    );
    return rows[0]?.id;
  }

  private async run(actionId: string): Promise<void> {
    const row = await this.db.returnBulkAction.findUniqueOrThrow({ where: { id: actionId } });
    const done = new Set((row.results as unknown as BulkActionOutcome[]).map((result) => result.id));
    const remaining = row.returnIds.filter((id) => !done.has(id));
    const numbers = new Map(
      (await this.db.return.findMany({ where: { id: { in: remaining } }, select: { id: true, number: true } })).map((ret) => [ret.id, ret.number]),
    );
    const startedBy = row.startedBy as StartedBy;
    const scope = { door: startedBy.door ?? 'job', actor: startedBy.actor ?? { kind: 'job' as const, name: 'return-bulk-actions' }, storeId: row.storeId, operation: 'returnsBulkAction' };
    for (const id of remaining) {
      if (!this.running) return;
      // A return deleted since the action was recorded (an erasure) is refused like any other.
      const number = numbers.get(id) ?? 0;
      try {
        await inRequestScope({ ...scope }, () =>
          inTransaction(this.db, async (tx) => {
            await operate(tx, row.storeId, row.action as BulkAction, row.argument, id);
            await recordResult(tx, actionId, this.instanceId, this.leaseMs, { id, number });
          }),
        );
      } catch (error) {
        if (error instanceof LeaseLost) return;
        if (!isDomainError(error)) throw error;
        try {
          await recordResult(this.db, actionId, this.instanceId, this.leaseMs, { id, number, refused: error.message });
        } catch (lost) {
          if (lost instanceof LeaseLost) return;
          throw lost;
        }
      }
      // Requests that came meanwhile queue their statements before the next return's: an embedded
      // database runs one transaction at a time, and back-to-back ones would keep them waiting.
      await setTimeout(0);
    }
  }
}
