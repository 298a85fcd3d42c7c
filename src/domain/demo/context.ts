// What every part of the demo data is written with: the open transaction, the stores and
// locations made first, the moment seeding started (every date is relative to it) and the
// one generator every choice comes from.
import type { Tx } from '../tx.ts';
import type { Random } from './random.ts';

export interface DemoContext {
  tx: Tx;
  storeId: string;
  /** The linked fulfillment service. */
  serviceId: string;
  /** The merchant's own warehouse: its default location. */
  warehouseId: string;
  /** The fulfillment service's location, which holds some of the merchant's stock. */
  serviceLocationId: string;
  now: Date;
  random: Random;
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** `days` (fractions allowed) before the seeding time. */
export function daysAgo(context: DemoContext, days: number): Date {
  return new Date(context.now.getTime() - Math.round(days * DAY_MS));
}

/** A date (midnight UTC) `days` after the seeding day; negative for earlier days. */
export function dayFromNow(context: DemoContext, days: number): Date {
  const day = new Date(context.now.getTime() + days * DAY_MS);
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
}
