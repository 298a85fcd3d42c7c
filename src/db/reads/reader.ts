// The one read path below the resolvers: a Prisma-shaped client (`reads.return.findMany(...)`,
// the read methods of Prisma's delegates and nothing else) whose every call is one SQL
// statement built by compile.ts and answered as plain JSON (see Plain). plugin-prisma is
// given this client too, so the loads it makes itself (node ids, a relation its parent did
// not bring) take the same path.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Prisma } from '../../generated/prisma/client.ts';
import type * as runtime from '@prisma/client/runtime/client';
import DataLoader from 'dataloader';
import { readModel } from '../../generated/readModel.ts';
import { compileCountBy, compileRead, parameterText, UnsupportedRead, type CompiledRead, type ReadKind } from './compile.ts';
import type { ReadModelModel } from './model.ts';
import { rowsOf, rowsReader } from './rowShape.ts';
import { beforeStatement, storeChangesColumn, untakenChangesAlong, type StoreChanges } from '../storeChanges.ts';
import { QUERY_CANCELED, type QueryOptions } from '../sqlChannel.ts';
import type { Plain } from './plain.ts';

export type { Plain };

type Models = Prisma.TypeMap['model'];
type ModelName = keyof Models & string;
type Operation = 'findMany' | 'findUnique' | 'findUniqueOrThrow' | 'findFirst' | 'findFirstOrThrow' | 'count';
type ArgsOf<M extends ModelName, O extends Operation> = Models[M]['operations'][O]['args'];
type Result<M extends ModelName, A, O extends Operation> = runtime.Types.Result.GetResult<Models[M]['payload'], A, O>;

export interface ReadDelegate<M extends ModelName> {
  findMany<A extends ArgsOf<M, 'findMany'>>(args?: Prisma.SelectSubset<A, ArgsOf<M, 'findMany'>>): Promise<Plain<Result<M, A, 'findMany'>>>;
  findUnique<A extends ArgsOf<M, 'findUnique'>>(args: Prisma.SelectSubset<A, ArgsOf<M, 'findUnique'>>): Promise<Plain<Result<M, A, 'findUnique'>>>;
  findUniqueOrThrow<A extends ArgsOf<M, 'findUniqueOrThrow'>>(
    args: Prisma.SelectSubset<A, ArgsOf<M, 'findUniqueOrThrow'>>,
  ): Promise<Plain<Result<M, A, 'findUniqueOrThrow'>>>;
  findFirst<A extends ArgsOf<M, 'findFirst'>>(args?: Prisma.SelectSubset<A, ArgsOf<M, 'findFirst'>>): Promise<Plain<Result<M, A, 'findFirst'>>>;
  findFirstOrThrow<A extends ArgsOf<M, 'findFirstOrThrow'>>(
    args?: Prisma.SelectSubset<A, ArgsOf<M, 'findFirstOrThrow'>>,
  ): Promise<Plain<Result<M, A, 'findFirstOrThrow'>>>;
  count(args?: { where?: WhereOf<M> }): Promise<number>;
  /** How many rows `where` holds for, per value of the scalar field `by` (one statement, GROUP BY). */
  countBy<F extends keyof Models[M]['fields'] & string>(by: F, args?: { where?: WhereOf<M> }): Promise<{ value: unknown; count: number }[]>;
}

type WhereOf<M extends ModelName> = ArgsOf<M, 'findMany'> extends { where?: infer W } ? W : never;

export type Reads = { [M in ModelName as Uncapitalize<M>]: ReadDelegate<M> };

export interface ReadChannel {
  query<T>(sql: string, params: unknown[], options?: QueryOptions): Promise<T[]>;
}

export class RecordNotFound extends Error {}

/**
 * How long a statement that searches text may run by default (on PostgreSQL; PGlite cannot
 * cancel one). The searches no index can narrow are refused before they run (domain/search); this
 * is the backstop for one that matches too much anyway, stopped and refused (SearchTimedOut). What
 * an index answers takes a few to 40 ms at a million records, but 150 ms refused about one
 * selective search in 200 on a loaded 2-core machine. SEARCH_TIME_LIMIT_MS sets another.
 */
export const SEARCH_TIME_LIMIT_MS = 500;

/** Set while reads run on for a search already accepted: an export's pages after its first. */
const unlimited = new AsyncLocalStorage<true>();

/**
 * Runs fn with its searches free of the time limit. For the pages of a walk whose first page
 * the limit let through: that page showed the search to be one an index narrows, and a later
 * page cut off by a slow moment of the database would end the walk part way, after its answer's
 * head was sent (an export), where nothing but a cut connection could say so.
 */
export function withoutSearchTimeLimit<T>(fn: () => Promise<T>): Promise<T> {
  return unlimited.run(true, fn);
}

/** A search statement the database cancelled at its time limit: it matched too much for an index to narrow. */
export class SearchTimedOut extends Error {
  constructor(readonly timeLimitMs: number) {
    super(`the search ran past its ${timeLimitMs} ms`);
  }
}

/** Runs `compiled`, a search within the search time limit unless withoutSearchTimeLimit lifted it. */
async function runCompiled<T>(channel: ReadChannel, compiled: CompiledRead, timeLimitMs: number): Promise<T[]> {
  if (!compiled.searches || unlimited.getStore()) return channel.query<T>(compiled.sql, compiled.params);
  try {
    return await channel.query<T>(compiled.sql, compiled.params, { timeLimitMs });
  } catch (error) {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) throw new SearchTimedOut(timeLimitMs);
    throw error;
  }
}

/**
 * The values of `column` in the rows of `compiled`. The first statement of an answer whose
 * validator reads the store's changes along (storeChanges.ts) carries them: the read's rows
 * aggregated into one JSON array beside the changes, in the one snapshot of one statement
 * (PostgreSQL aggregates a sorted subquery's rows in its order, as its manual says; the
 * recorded answers of every door check the pages keep it). Any other statement waits for that
 * first one.
 */
async function columnOf<T>(channel: ReadChannel, compiled: CompiledRead, column: 'j' | 'count', timeLimitMs: number): Promise<T[]> {
  const along = untakenChangesAlong();
  if (!along) {
    await beforeStatement();
    return (await runCompiled<Record<string, T>>(channel, compiled, timeLimitMs)).map((row) => row[column]);
  }
  const store = `$${compiled.params.length + 1}`;
  const sql = `SELECT ${storeChangesColumn(store)} AS changes, (SELECT coalesce(json_agg(q.${column}), '[]'::json) FROM (${compiled.sql}) q) AS rows`;
  return along.carry(async () => {
    const [row] = await runCompiled<{ changes: StoreChanges[]; rows: T[] }>(channel, { ...compiled, sql, params: [...compiled.params, along.storeId] }, timeLimitMs);
    return { result: row.rows, changes: row.changes };
  });
}

type Args = Record<string, unknown>;

/** How many compiled statements a Reads keeps (the oldest go first): the reads a service repeats are a few hundred at most. */
const COMPILED_READS_KEPT = 500;

/** Thrown while keying a read that holds a value whose text could stand for another value. */
class Unkeyable extends Error {}

/**
 * A read's shape as text: plain values as JSON writes them and each Date as `@`, which no JSON
 * value is, its Date pushed onto `dates` (in the order copyDates meets them). A Decimal, a
 * non-finite number, a bigint or any other object could share its text with a value that
 * compiles otherwise: Unkeyable.
 */
function shapeText(value: unknown, dates: Date[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new Unkeyable();
      return String(value);
    case 'object':
      break;
    default:
      throw new Unkeyable();
  }
  if (value === null) return 'null';
  if (value instanceof Date) {
    dates.push(value);
    return '@';
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'u' : shapeText(item, dates))).join(',')}]`;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new Unkeyable();
  let text = '{';
  for (const [key, item] of Object.entries(value)) if (item !== undefined) text += `${JSON.stringify(key)}:${shapeText(item, dates)},`;
  return `${text}}`;
}

/** The read's key (model, kind, shape) and its Dates; undefined for a read shapeText cannot key. */
export function readShape(modelName: string, kind: ReadKind, args: Args | undefined): { key: string; dates: Date[] } | undefined {
  const dates: Date[] = [];
  try {
    return { key: `${modelName}\u0000${kind}\u0000${shapeText(args ?? {}, dates)}`, dates };
  } catch (error) {
    if (error instanceof Unkeyable) return undefined;
    throw error;
  }
}

/**
 * `value` with each Date a copy of its own, pushed onto `copies` in the order shapeText meets
 * them, in a read shapeText keyed (plain objects only): a Date object given twice (a keyset
 * page's bound is) then stands for one place in the key each time.
 */
function copyDates(value: unknown, copies: Date[]): unknown {
  if (value instanceof Date) {
    const copy = new Date(value.getTime());
    copies.push(copy);
    return copy;
  }
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? item : copyDates(item, copies)));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Args = {};
  for (const [key, item] of Object.entries(value)) copy[key] = item === undefined ? item : copyDates(item, copies);
  return copy;
}

/** A statement of a read: its rows come last first where `backward`, and `rows` makes them objects (rowShape.ts). */
type ReadStatement = CompiledRead & { backward: boolean; rows?: (values: unknown[][]) => Record<string, unknown>[] };

/** A kept statement: each slot's parameter is the text of the read's Date at `position` (in shapeText's order). */
type KeptRead = ReadStatement & { dateSlots: { index: number; position: number }[] };

/** The statement of a read with `dates` in its slots. */
function withDates(kept: KeptRead, dates: Date[]): ReadStatement {
  // Each run gets its own parameters: a driver may keep or change the array it is given.
  const params = [...kept.params];
  for (const { index, position } of kept.dateSlots) params[index] = parameterText(dates[position]);
  return { sql: kept.sql, params, searches: kept.searches, backward: kept.backward, rows: kept.rows };
}

/**
 * The single-field unique key a findUnique names with a plain value (`{ id: 'ret_1' }`), by
 * which reads made in the same tick are answered by one statement, as Prisma batches them.
 */
function batchableKey(model: ReadModelModel, where: Args | undefined): string | undefined {
  if (!where) return undefined;
  return model.uniques.find((unique) => {
    if (unique.fields.length !== 1) return false;
    const value = where[unique.name];
    return typeof value === 'string' || typeof value === 'number';
  })?.name;
}

/**
 * Whether `where` gives a value for one of the model's unique keys, as Prisma requires of a
 * findUnique. A key left undefined would compile to no condition at all, and the read would
 * answer whichever row came first: a row without the key (a select-mode row that did not load
 * its id) must fail, not find some other store's record.
 */
function namesUniqueKey(model: ReadModelModel, where: Args | undefined): boolean {
  return where !== undefined && model.uniques.some((unique) => where[unique.name] !== undefined && where[unique.name] !== null);
}

/** `reads.<model>` for every model of the read model, running each read on `channel`. */
/** `searchTimeLimitMs`: how long a statement that searches text may run (SEARCH_TIME_LIMIT_MS). */
export function createReads(channel: ReadChannel, { searchTimeLimitMs = SEARCH_TIME_LIMIT_MS }: { searchTimeLimitMs?: number } = {}): Reads {
  const run = async (compiled: ReadStatement) => {
    // Only a count has no rows to make, and a count is not run here.
    const records = compiled.rows!(await columnOf<unknown[][]>(channel, compiled, 'j', searchTimeLimitMs));
    return compiled.backward ? records.reverse() : records;
  };
  // A statement is a function of its read's shape: compiling the read a page of returns makes took
  // ~100 times as long as keying it, so a read made again (a list polled, a page's first page, a
  // window ending now) reuses it with its own Dates in the statement's date slots.
  const compiledReads = new Map<string, KeptRead>();
  /** A read compiled for this once: its rows are made key by key (rowsOf). */
  const once = ({ shape, ...compiled }: ReturnType<typeof compileRead>): ReadStatement => ({
    ...compiled,
    rows: shape && ((values) => rowsOf(shape, values)),
  });
  const compile = (modelName: string, kind: ReadKind, args: Args | undefined): ReadStatement => {
    const shape = readShape(modelName, kind, args);
    if (!shape) return once(compileRead(readModel, modelName, kind, args));
    const kept = compiledReads.get(shape.key);
    if (kept) return withDates(kept, shape.dates);
    const copies: Date[] = [];
    const compiled = compileRead(readModel, modelName, kind, copyDates(args, copies) as Args | undefined);
    // A Date that went into a list or a pattern is in the statement as its value: that read is compiled afresh.
    if (compiled.dates.elsewhere) return once(compiled);
    const { dates, shape: rowShape, ...statement } = compiled;
    const positions = new Map(copies.map((copy, position) => [copy, position]));
    const dateSlots = dates.slots.map(({ index, date }) => ({ index, position: positions.get(date)! }));
    if (compiledReads.size >= COMPILED_READS_KEPT) compiledReads.delete(compiledReads.keys().next().value!);
    const fresh: KeptRead = { ...statement, rows: rowShape && rowsReader(rowShape), dateSlots };
    compiledReads.set(shape.key, fresh);
    return withDates(fresh, shape.dates);
  };

  const delegate = (model: ReadModelModel) => {
    const read = async (kind: ReadKind, args: Args | undefined) => run(compile(model.name, kind, args));
    const batches = new Map<string, DataLoader<string | number, unknown>>();
    /** The loader of the findUniques that differ only in the value of `key`. */
    const batchOf = (key: string, args: Args) => {
      const { [key]: _value, ...rest } = args.where as Args;
      const shared: Args = { ...args, where: rest };
      const id = `${key}\u0000${JSON.stringify(shared)}`;
      let loader = batches.get(id);
      if (!loader) {
        const select = shared.select as Args | undefined;
        const added = select !== undefined && !select[key];
        const query = added ? { ...shared, select: { ...select, [key]: true } } : shared;
        loader = new DataLoader<string | number, unknown>(
          async (values) => {
            // A loader serves one tick's reads; the next tick's start a new one, so none outlives its batch.
            batches.delete(id);
            const records = (await read('many', { ...query, where: { ...rest, [key]: { in: [...values] } } })) as Args[];
            const byKey = new Map(records.map((record) => [record[key], record]));
            if (added) for (const record of records) delete record[key];
            return values.map((value) => byKey.get(value) ?? null);
          },
          { cache: false },
        );
        batches.set(id, loader);
      }
      return loader;
    };
    const unique = async (args: Args, orThrow: boolean) => {
      if (!namesUniqueKey(model, args.where as Args | undefined)) throw new UnsupportedRead(`findUnique of ${model.name} names no unique key`);
      const key = batchableKey(model, args.where as Args | undefined);
      const record = key ? await batchOf(key, args).load((args.where as Args)[key] as string | number) : ((await read('first', args))[0] ?? null);
      if (record === null && orThrow) throw new RecordNotFound(`No ${model.name} found`);
      return record;
    };
    const first = async (args: Args | undefined, orThrow: boolean) => {
      const [record] = await read('first', args);
      if (record === undefined && orThrow) throw new RecordNotFound(`No ${model.name} found`);
      return record ?? null;
    };
    return {
      findMany: (args?: Args) => read('many', args),
      findUnique: (args: Args) => unique(args, false),
      findUniqueOrThrow: (args: Args) => unique(args, true),
      findFirst: (args?: Args) => first(args, false),
      findFirstOrThrow: (args?: Args) => first(args, true),
      count: async (args?: Args) => {
        const [count] = await columnOf<number>(channel, compile(model.name, 'count', args), 'count', searchTimeLimitMs);
        return count;
      },
      countBy: async (by: string, args?: Args) => {
        const compiled = compileCountBy(readModel, model.name, by, args?.where as Args | undefined);
        // Its values keep the types pg gives them (a date as a Date), which JSON would not: it carries no changes.
        await beforeStatement();
        return runCompiled<{ value: unknown; count: number }>(channel, compiled, searchTimeLimitMs);
      },
    };
  };
  const reads: Record<string, unknown> = {};
  for (const model of Object.values(readModel.models)) reads[model.name[0].toLowerCase() + model.name.slice(1)] = delegate(model);
  return reads as Reads;
}
