// Facts about a return that reports and lists show: when it was closed, its restock state,
// where it came from, and how an item is shown.
import { Prisma, type ReturnStatus } from '../../generated/prisma/client.ts';
import type { Plain } from '../../db/reads/plain.ts';
import { IN_PROGRESS } from './status.ts';

/** A time as reads answer it (text) or as Prisma does (Date). */
type Instant = Date | string;

const time = (value: Instant) => new Date(value).getTime();

/**
 * Whether `a` is after `b`. Two instants written alike in UTC (as reads answer them:
 * 2026-11-30T00:13:34.663Z) order as their text, without being parsed; others are parsed.
 */
function isAfter(a: Instant, b: Instant): boolean {
  if (typeof a === 'string' && typeof b === 'string' && a.length === b.length && a.endsWith('Z') && b.endsWith('Z')) return a > b;
  return time(a) > time(b);
}

/** When the return last changed after its creation; null while it is as created. */
export function editedAtOf<T extends Instant>(ret: { createdAt: T; updatedAt: T }): T | null {
  return isAfter(ret.updatedAt, ret.createdAt) ? ret.updatedAt : null;
}

/**
 * A return's status history as every reader takes it, oldest first. One shape for all of them
 * (the statusChanges field, closedAt, the notice's rows): a read that selects several of them
 * then brings the history once, in the statement of the return, where differing filters would
 * each cost a statement of their own.
 */
export const STATUS_HISTORY = { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } satisfies Prisma.ReturnStatusChangeFindManyArgs;

/** What closedAtOf reads; usable as a Prisma `select` on Return. */
export const CLOSED_AT_SELECT = {
  status: true,
  statusChanges: { ...STATUS_HISTORY, select: { toStatus: true, createdAt: true } },
} satisfies Prisma.ReturnSelect;

/** When the history (oldest first) last led to `status`; null if it never did. */
export function lastChangeTo<T extends Instant>(history: { toStatus: ReturnStatus; createdAt: T }[], status: ReturnStatus): T | null {
  for (let i = history.length - 1; i >= 0; i--) if (history[i].toStatus === status) return history[i].createdAt;
  return null;
}

/** When a complete return was processed (its latest change to complete); null unless it is complete now. */
export function closedAtOf<T extends Instant>(ret: { status: ReturnStatus; statusChanges: { toStatus: ReturnStatus; createdAt: T }[] }): T | null {
  return ret.status === 'complete' ? lastChangeTo(ret.statusChanges, 'complete') : null;
}

/**
 * Whether the returned units go back to stock where they are received: null without a receiving
 * location; `pending` while the return is handled; `not_restocked` once it is final, because
 * processing records refunds and credit but changes no inventory level.
 */
export function restockStatusOf(ret: { status: ReturnStatus; destinationLocationId: string | null }): 'pending' | 'not_restocked' | null {
  if (ret.destinationLocationId === null) return null;
  return IN_PROGRESS.includes(ret.status) ? 'pending' : 'not_restocked';
}

/** The number in an order's name ("#1001" -> "1001"); null when the name holds none. */
export function orderNumberOf(name: string): string | null {
  return /\d+/.exec(name)?.[0] ?? null;
}

/** What originCountryOf reads; usable as a Prisma `select` on Return. */
export const ORIGIN_COUNTRY_SELECT = { originAddress: true, order: { select: { shippingAddress: true } } } satisfies Prisma.ReturnSelect;

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** English names by two-letter code, asked of ICU once each (a page asks for every return's); at most 26 × 26 entries. */
const regionNameByCode = new Map<string, string>();

function regionName(code: string): string {
  let name = regionNameByCode.get(code);
  if (name === undefined) {
    name = regionNames.of(code) ?? code;
    regionNameByCode.set(code, name);
  }
  return name;
}

/** An address's country as given, trimmed; empty when it names none. */
function countryIn(address: unknown): string {
  return address !== null && typeof address === 'object' && typeof (address as { country?: unknown }).country === 'string'
    ? (address as { country: string }).country.trim()
    : '';
}

/**
 * The country the return ships from: its origin address's, else (none given) its order's
 * shipping address's. A two-letter value is the ISO code and gives the English name; other
 * text (an origin address given to returnCreate is stored as sent) is the name, without a code.
 */
export function originCountryOf(ret: { originAddress: unknown; order: { shippingAddress: unknown } | null }): { code: string | null; name: string | null } {
  const given = countryIn(ret.originAddress) || countryIn(ret.order?.shippingAddress);
  if (given === '') return { code: null, name: null };
  if (!/^[A-Za-z]{2}$/.test(given)) return { code: null, name: given };
  const code = given.toUpperCase();
  return { code, name: regionName(code) };
}

/** What describing a returned item's variant and picture reads; usable as a Prisma `select` on ReturnItem. */
export const ITEM_LOOK_SELECT = {
  variantTitle: true,
  product: { select: { images: { orderBy: [{ position: 'asc' }, { id: 'asc' }], take: 1, select: { url: true } } } },
  orderLineItem: {
    select: {
      imageUrl: true,
      product: {
        select: {
          options: { orderBy: { option: { position: 'asc' } }, select: { value: true } },
          images: { orderBy: [{ position: 'asc' }, { id: 'asc' }], take: 1, select: { url: true } },
        },
      },
    },
  },
} satisfies Prisma.ReturnItemSelect;

type ItemLookSource = Plain<Prisma.ReturnItemGetPayload<{ select: typeof ITEM_LOOK_SELECT }>>;

/** An ordered item's variant is its matched product's option values ("Small / Navy"); an imported one's what the import gave. */
export function itemVariantTitle(item: ItemLookSource): string | null {
  const line = item.orderLineItem;
  if (!line) return item.variantTitle;
  const values = line.product?.options.map((option) => option.value) ?? [];
  return values.length > 0 ? values.join(' / ') : null;
}

/** The line's image as submitted, else the first image of the product the item names. */
export function itemImageUrl(item: ItemLookSource): string | null {
  const line = item.orderLineItem;
  if (line) return line.imageUrl ?? line.product?.images[0]?.url ?? null;
  return item.product?.images[0]?.url ?? null;
}
