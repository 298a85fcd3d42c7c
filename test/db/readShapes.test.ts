// Reads kept by their shape (src/db/reads/reader.ts): a read whose Dates alone differ (a window
// ending now) has the key of the first, so it reuses the statement compiled for it, run with its
// own Dates as parameters; a read whose values change the statement's text never shares a key.
// The channel records what it is asked to run.
import { beforeEach, describe, expect, it } from 'vitest';
import { createReads, readShape } from '../../src/db/reads/reader.ts';

const statements: { sql: string; params: unknown[] }[] = [];
const reads = createReads({
  async query<T>(sql: string, params: unknown[]): Promise<T[]> {
    statements.push({ sql, params });
    return [];
  },
});

beforeEach(() => {
  statements.length = 0;
});

const HOUR = 60 * 60 * 1000;
const iso = (time: number) => new Date(time).toISOString();
const windowRead = (end: number) => ({
  where: { storeId: 'str_1', createdAt: { gte: new Date(end - 24 * HOUR), lt: new Date(end) } },
  select: { id: true },
  orderBy: { createdAt: 'desc' as const },
});
const keyOf = (where: object) => readShape('Return', 'count', { where })?.key;

describe('reads kept by their shape', () => {
  it('a window that moves keeps one key, and each read runs with its own bounds', async () => {
    const ends = [Date.UTC(2026, 10, 29, 12), Date.UTC(2026, 10, 29, 12, 0, 0, 7), Date.UTC(2027, 0, 1)];
    expect(new Set(ends.map((end) => readShape('Return', 'many', windowRead(end))?.key)).size).toBe(1);
    for (const end of ends) await reads.return.findMany(windowRead(end));
    expect(new Set(statements.map((s) => s.sql)).size).toBe(1);
    expect(statements.map((s) => s.params)).toEqual(ends.map((end) => ['str_1', iso(end - 24 * HOUR), iso(end)]));
  });

  it('one Date object in several places is several slots, each filled from its own place', async () => {
    const bound = new Date(Date.UTC(2026, 5, 1));
    const [a, b, c] = [1, 2, 3].map((day) => new Date(Date.UTC(2026, 6, day)));
    const page = (lte: Date, lt: Date, at: Date) => ({ createdAt: { lte }, OR: [{ createdAt: { lt } }, { createdAt: at, id: { lt: 'ret_b' } }] });
    expect(keyOf(page(bound, bound, bound))).toBe(keyOf(page(a, b, c)));
    await reads.return.count({ where: page(bound, bound, bound) });
    await reads.return.count({ where: page(a, b, c) });
    expect(statements[1].params).toEqual([a, b, c].map((date) => date.toISOString()).concat('ret_b'));
  });

  it('values that change the statement do not share a key: null or a Date, a Date or its text, a bound more', async () => {
    const date = new Date(Date.UTC(2026, 0, 1));
    const wheres = [
      { labelUpdatedAt: null },
      { labelUpdatedAt: date },
      { labelUpdatedAt: date.toISOString() },
      { labelUpdatedAt: { gte: date } },
      { labelUpdatedAt: { gte: date, lt: date } },
      { labelUpdatedAt: { in: [date] } },
      { labelUpdatedAt: { in: [date, date] } },
    ];
    expect(new Set(wheres.map(keyOf)).size).toBe(wheres.length);
    // A bound left undefined is no bound, as the compiler reads it.
    expect(keyOf({ labelUpdatedAt: { gte: date, lt: undefined } })).toBe(keyOf({ labelUpdatedAt: { gte: date } }));
    for (const where of wheres) await reads.return.count({ where });
    expect(statements[0].sql).toMatch(/IS NULL/);
    expect(statements[1].sql).not.toMatch(/IS NULL/);
  });

  it('a Date in a list or a pattern is in the statement as its value: each such read runs with its own', async () => {
    const [first, second] = [Date.UTC(2026, 0, 2), Date.UTC(2026, 0, 3)];
    await reads.return.count({ where: { createdAt: { in: [new Date(first)] } } });
    await reads.return.count({ where: { createdAt: { in: [new Date(second)] } } });
    expect(statements.map((s) => s.params)).toEqual([[`{"${iso(first)}"}`], [`{"${iso(second)}"}`]]);
  });

  it('refuses to key what could share its text with another value', () => {
    for (const value of [Number.NaN, Infinity, 1n, new Map(), () => 1]) expect(keyOf({ number: value })).toBeUndefined();
  });
});
