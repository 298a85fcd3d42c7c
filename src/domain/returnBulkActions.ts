// Bulk actions on returns (the dashboard's returns list): one action (flag, close, process,
// tag, note) on up to MAX_BULK_RETURNS returns, each return in its own transaction through the
// same operation as one at a time, so a return the action does not apply to is refused alone
// and the others go ahead. The action, the returns it names and what became of each are kept
// in a row under the key the caller gives: the same key again finds that row and acts on
// nothing. The returns are acted on after the row is made, beside the caller, and the row says
// how far it got, so a large selection can be watched while it runs.
import { Prisma } from '../generated/prisma/client.ts';
import type { Reads } from '../db/reads/reader.ts';
import { Invalid, isDomainError, isUniqueViolation } from './errors.ts';
import { newId } from './ids.ts';
import { addReturnNote, addReturnTag, flagReturn, MAX_NOTE_LENGTH, processReturn, rejectReturn, returnListWhere, type ReturnListFilters } from './returns.ts';
import type { Db } from './tx.ts';

/** The most returns one bulk action acts on: a larger selection is refused, not cut short. */
export const MAX_BULK_RETURNS = 1000;

export const BULK_ACTIONS = ['flag', 'close', 'process', 'tag', 'note'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

const MAX_KEY_LENGTH = 100;
/** A running action whose row has not moved for this long was left by a process that stopped. */
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
  /** running, done, or stalled: left running by a process that stopped (the returns not reached were not acted on). */
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

function operate(db: Db, storeId: string, action: BulkAction, argument: string | null, id: string): Promise<unknown> {
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

/**
 * Acts on each return in turn, recording after each what became of it and handing `progress`
 * the row as recorded; a failure that is no refusal stops the run (the row then stalls).
 */
async function runBulkAction(
  db: Db,
  storeId: string,
  rowId: string,
  returns: { id: string; number: number }[],
  action: BulkAction,
  argument: string | null,
  progress: (row: Row) => void,
): Promise<void> {
  const results: BulkActionOutcome[] = [];
  for (const [index, ret] of returns.entries()) {
    try {
      await operate(db, storeId, action, argument, ret.id);
      results.push({ id: ret.id, number: ret.number });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      results.push({ id: ret.id, number: ret.number, refused: error.message });
    }
    const last = index === returns.length - 1;
    // A note's words live on in each return's note, which a shopper's erasure treats; the action's copy is dropped once it is written everywhere.
    const finished = last ? { state: 'done', ...(action === 'note' ? { argument: null } : {}) } : {};
    progress(await db.returnBulkAction.update({ where: { id: rowId }, data: { results: results as unknown as Prisma.InputJsonValue, ...finished } }));
    // Requests that came meanwhile queue their statements before the next return's: an embedded
    // database runs one transaction at a time, and back-to-back ones would keep them waiting.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/**
 * Starts the bulk action `input` describes, or finds the one started with its key (which then
 * acts on nothing more). Answers once the action is done or `waitMs` has passed, whichever is
 * first: a small selection comes back with its outcome, a large one while it runs.
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
  const rowId = newId('returnBulkAction');
  let row: Row;
  try {
    row = await db.returnBulkAction.create({
      data: { id: rowId, storeId, key: input.key, action: input.action, argument, returnIds: returns.map((ret) => ret.id) },
    });
  } catch (error) {
    // The same key sent twice at once: the other made the row and acts.
    if (isUniqueViolation(error)) return (await findReturnBulkAction(db, storeId, input.key))!;
    throw error;
  }
  // The caller is answered from the run's own record of its progress (a read beside a busy
  // embedded database would wait for the run to pause), once it is done or waitMs has passed.
  const deadline = Date.now() + waitMs;
  let answer!: (state: ReturnBulkActionState) => void;
  const answered = new Promise<ReturnBulkActionState>((resolve) => (answer = resolve));
  runBulkAction(db, storeId, rowId, returns, input.action, argument, (recorded) => {
    row = recorded;
    if (recorded.state === 'done' || Date.now() >= deadline) answer(stateOf(recorded));
  }).catch(() => answer(stateOf(row)));
  return answered;
}
