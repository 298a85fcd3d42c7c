// The return rate reads a period's whole days as month, week and day rows of the SKU figures
// (src/domain/overview.ts, migration overview_sku_weeks): every whole day must be counted once,
// by rows that exist (weeks starting on Mondays as PostgreSQL's date_trunc('week') starts them,
// months on their firsts), whatever the period.
import { describe, expect, it } from 'vitest';
import { skuPeriods } from '../../src/domain/overview.ts';

const DAY_MS = 86_400_000;
const day = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
const number = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;

function coveredDays({ days, weeks, months }: ReturnType<typeof skuPeriods>): string[] {
  const covered = [...days];
  for (const monday of weeks) {
    expect(new Date(`${monday}T00:00:00Z`).getUTCDay(), `${monday} starts a week`).toBe(1);
    for (let i = 0; i < 7; i++) covered.push(day(number(monday) + i));
  }
  for (const first of months) {
    expect(first.slice(8), `${first} starts a month`).toBe('01');
    const start = new Date(`${first}T00:00:00Z`);
    const end = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) / DAY_MS;
    for (let n = number(first); n < end; n++) covered.push(day(n));
  }
  return covered.sort();
}

describe('the whole days of a period as SKU rows', () => {
  it('count every day once, for periods from none to a year and a day, starting on any weekday', () => {
    const start = number('2027-12-20');
    for (let from = start; from < start + 70; from += 3) {
      for (const length of [0, 1, 6, 7, 8, 13, 14, 27, 31, 45, 60, 90, 120, 367]) {
        const expected = Array.from({ length }, (_, i) => day(from + i));
        expect(coveredDays(skuPeriods(day(from), day(from + length))), `${day(from)} + ${length} days`).toEqual(expected);
      }
    }
  });

  it('read whole months and weeks as one row each, leaving at most six days on each side', () => {
    expect(skuPeriods('2026-09-12', '2026-11-09')).toEqual({
      days: ['2026-09-12', '2026-09-13', '2026-09-28', '2026-09-29', '2026-09-30', '2026-11-01'],
      weeks: ['2026-09-14', '2026-09-21', '2026-11-02'],
      months: ['2026-10-01'],
    });
    expect(skuPeriods('2026-11-02', '2026-11-23')).toEqual({ days: [], weeks: ['2026-11-02', '2026-11-09', '2026-11-16'], months: [] });
  });
});
