// Locations and stock. A level's `available` is never stored: it is always
// quantity - committed - reserved. Every change to a level goes through
// `changeLevel`, which locks the row, keeps the invariants (no negative count,
// neither committed nor reserved above the quantity on hand, except that orders may
// commit past it: oversold, a negative `available`), writes the
// InventoryAdjustment ledger row and the `inventory_level.updated` event, all in
// the caller's transaction.
import type { InventoryLevel, Location, Prisma } from '../generated/prisma/client.ts';
import { count, countryCode, InputIssues, optionalText, requiredText } from './inputChecks.ts';
import { NotFound, UnprocessableState } from './errors.ts';
import { recordingCtes } from './events.ts';
import { newId } from './ids.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

// ---------------------------------------------------------------- visibility

/**
 * Locations a store may use and read: its own, and those of the fulfillment
 * services it is linked to (they serve its orders and hold its stock).
 */
export function visibleLocationWhere(storeId: string): Prisma.LocationWhereInput {
  return { OR: [{ storeId }, { store: { merchants: { some: { merchantId: storeId } } } }] };
}

/** Levels a store sees: those of its own products, and every level at its own locations (a fulfillment service's view). */
export function visibleLevelWhere(storeId: string): Prisma.InventoryLevelWhereInput {
  return { OR: [{ storeId }, { location: { storeId } }] };
}

export function availableOf(level: Pick<InventoryLevel, 'quantity' | 'committed' | 'reserved'>): number {
  return level.quantity - level.committed - level.reserved;
}

// ---------------------------------------------------------------- locations

export interface LocationInput {
  name?: string | null;
  company?: string | null;
  street1?: string | null;
  street2?: string | null;
  city?: string | null;
  stateCode?: string | null;
  postalCode?: string | null;
  countryCode?: string | null;
  phone?: string | null;
}

function locationColumns(issues: InputIssues, input: LocationInput, creating: boolean) {
  const phone = optionalText(issues, 'phone', input.phone, 32);
  if (phone && !/^\+?[0-9 ()./-]{3,32}$/.test(phone)) issues.add('phone', 'must be a phone number');
  return {
    name: creating || input.name !== undefined ? requiredText(issues, 'name', input.name) : undefined,
    company: optionalText(issues, 'company', input.company),
    street1: optionalText(issues, 'street1', input.street1),
    street2: optionalText(issues, 'street2', input.street2),
    city: optionalText(issues, 'city', input.city),
    stateCode: optionalText(issues, 'stateCode', input.stateCode, 10),
    postalCode: optionalText(issues, 'postalCode', input.postalCode, 20),
    countryCode: countryCode(issues, 'countryCode', input.countryCode),
    phone,
  };
}

export async function createLocation(db: Db | Tx, storeId: string, input: LocationInput): Promise<Location> {
  const issues = new InputIssues();
  const columns = locationColumns(issues, input, true);
  issues.throwIfAny();
  return inTransaction(db, (tx) => tx.location.create({ data: { ...columns, name: columns.name!, id: newId('location'), storeId } }));
}

/** Only the owning store changes a location; a linked merchant merely uses it. */
export async function updateLocation(db: Db | Tx, storeId: string, id: string, input: LocationInput): Promise<Location> {
  const issues = new InputIssues();
  const columns = locationColumns(issues, input, false);
  issues.throwIfAny();
  return inTransaction(db, async (tx) => {
    const location = await tx.location.findFirst({ where: { id, storeId }, select: { id: true } });
    if (!location) throw new NotFound(`location ${id} not found`, { path: 'id' });
    return tx.location.update({ where: { id }, data: columns });
  });
}

/** Makes one of the locations the store may use the one orders without a location commit at. */
export async function setDefaultLocation(db: Db | Tx, storeId: string, locationId: string): Promise<Location> {
  return inTransaction(db, async (tx) => {
    const location = await tx.location.findFirst({ where: { AND: [{ id: locationId }, visibleLocationWhere(storeId)] } });
    if (!location) throw new NotFound(`location ${locationId} not found`, { path: 'id' });
    await tx.store.update({ where: { id: storeId }, data: { defaultLocationId: location.id } });
    return location;
  });
}

// ---------------------------------------------------------------- level changes

export interface LevelDelta {
  quantity?: number;
  committed?: number;
  reserved?: number;
  buildable?: number;
}

export interface ChangeCause {
  reason: string;
  /** What caused it: an order, an inbound shipment, an API client ... */
  referenceId?: string | null;
}

/** The problems `delta` would cause on `level`, with the input path each belongs to. */
function invariantIssues(level: InventoryLevel, delta: LevelDelta, paths: Record<keyof LevelDelta, string>, allowOvercommit: boolean) {
  const next = {
    quantity: level.quantity + (delta.quantity ?? 0),
    committed: level.committed + (delta.committed ?? 0),
    reserved: level.reserved + (delta.reserved ?? 0),
    buildable: level.buildable + (delta.buildable ?? 0),
  };
  const issues: { path: string; message: string }[] = [];
  for (const key of ['quantity', 'committed', 'reserved', 'buildable'] as const) {
    if (next[key] < 0) issues.push({ path: paths[key], message: `${key} would become ${next[key]}; it cannot go below 0 (now ${level[key]})` });
  }
  for (const key of ['committed', 'reserved'] as const) {
    // An oversold level (committed above quantity, from orders) may still receive stock or
    // release commitments; only a change that deepens the shortfall is refused.
    const shortfallBefore = Math.max(0, level[key] - level.quantity);
    if (key === 'committed' && (allowOvercommit || next[key] - next.quantity <= shortfallBefore)) continue;
    if (next[key] > next.quantity) {
      issues.push({ path: paths[key], message: `${key} would become ${next[key]}, above the quantity on hand (${next.quantity})` });
    }
  }
  return { next, issues };
}

const DEFAULT_PATHS: Record<keyof LevelDelta, string> = {
  quantity: 'quantity',
  committed: 'committed',
  reserved: 'reserved',
  buildable: 'buildable',
};

/**
 * One statement for a level's change: the level locked (only when it is `$2`'s store's, when
 * given), changed only when the invariants hold (invariantIssues in SQL: no count below 0, no
 * reserve above the quantity on hand, no deeper shortfall of commitments unless `$8`), its ledger
 * row and its `inventory_level.updated` event. Answers the changed level, or the level as it was
 * (`refused`) so that invariantIssues can say why, or no row for an unknown level.
 */
const CHANGE_LEVEL_SQL = `
WITH level AS MATERIALIZED (
  SELECT * FROM "InventoryLevel" WHERE id = $1 AND ($2::text IS NULL OR "storeId" = $2::text) FOR UPDATE
), changed AS (
  UPDATE "InventoryLevel" l SET quantity = l.quantity + $3::int, committed = l.committed + $4::int, reserved = l.reserved + $5::int, buildable = l.buildable + $6::int, "updatedAt" = $7::timestamp(3)
  FROM level v
  WHERE l.id = v.id
    AND v.quantity + $3::int >= 0 AND v.committed + $4::int >= 0 AND v.reserved + $5::int >= 0 AND v.buildable + $6::int >= 0
    AND v.reserved + $5::int <= v.quantity + $3::int
    AND ($8::boolean OR (v.committed + $4::int) - (v.quantity + $3::int) <= greatest(0, v.committed - v.quantity))
  RETURNING l.*
), ledger AS (
  INSERT INTO "InventoryAdjustment" (id, "levelId", reason, "referenceId", "quantityDelta", "committedDelta", "reservedDelta", "buildableDelta", "createdAt")
  SELECT $9, id, $10, $11, $3::int, $4::int, $5::int, $6::int, $7::timestamp(3) FROM changed
), announced AS (
  SELECT 'inventory_level.updated'::text AS topic, id AS "subjectId", jsonb_build_object(
    'id', id, 'productId', "productId", 'locationId', "locationId", 'quantity', quantity,
    'available', quantity - committed - reserved, 'committed', committed, 'reserved', reserved, 'buildable', buildable,
    'updatedAt', $13::text,
    'change', jsonb_build_object('reason', $10::text, 'referenceId', $11::text, 'quantityDelta', $3::int, 'committedDelta', $4::int, 'reservedDelta', $5::int, 'buildableDelta', $6::int)
  ) AS data FROM changed
), ${recordingCtes('$12', '(SELECT "storeId" FROM level)')}
SELECT *, false AS refused FROM changed
UNION ALL
SELECT *, true AS refused FROM level WHERE NOT EXISTS (SELECT 1 FROM changed)`;

/**
 * Applies `delta` to one level inside `tx`, in one statement (CHANGE_LEVEL_SQL). The row is
 * locked first so concurrent changes of the same level serialise; a change breaking an
 * invariant is refused with UnprocessableState and nothing is written.
 */
export async function changeLevel(
  tx: Tx,
  levelId: string,
  delta: LevelDelta,
  cause: ChangeCause,
  paths: Record<keyof LevelDelta, string> = DEFAULT_PATHS,
  options: { allowOvercommit?: boolean; storeId?: string } = {},
): Promise<InventoryLevel> {
  const now = new Date().toISOString();
  const [row] = await tx.$queryRawUnsafe<(InventoryLevel & { refused: boolean })[]>(
    CHANGE_LEVEL_SQL,
    levelId,
    options.storeId ?? null,
    delta.quantity ?? 0,
    delta.committed ?? 0,
    delta.reserved ?? 0,
    delta.buildable ?? 0,
    now,
    options.allowOvercommit ?? false,
    newId('inventoryAdjustment'),
    cause.reason,
    cause.referenceId ?? null,
    newId('event'),
    // The same time as text: a parameter has one type, and the event shows the time as JavaScript writes it.
    now,
  );
  if (!row) throw new NotFound(`inventory level ${levelId} not found`, { path: 'levelId' });
  const { refused, ...level } = row;
  if (!refused) return level;
  const { issues } = invariantIssues(level, delta, paths, options.allowOvercommit ?? false);
  if (issues.length === 0) throw new Error(`inventory level ${levelId}: the change was refused, yet breaks no invariant`);
  throw new UnprocessableState(`inventory level ${levelId}: ${issues.map((i) => i.message).join('; ')}`, { path: issues[0].path, issues });
}

/** The level of a product at a location, created empty when it does not exist yet. */
export async function ensureLevel(tx: Tx, product: { id: string; storeId: string }, locationId: string): Promise<InventoryLevel> {
  const existing = await tx.inventoryLevel.findUnique({ where: { productId_locationId: { productId: product.id, locationId } } });
  if (existing) return existing;
  await tx.inventoryLevel.createMany({
    data: [{ id: newId('inventoryLevel'), storeId: product.storeId, productId: product.id, locationId }],
    skipDuplicates: true,
  });
  return tx.inventoryLevel.findUniqueOrThrow({ where: { productId_locationId: { productId: product.id, locationId } } });
}

/**
 * One statement that commits `quantity` of each level for one cause (an order): the levels are
 * locked in id order (concurrent orders sharing levels lock them in the same order, so they
 * queue and never deadlock), then each gets its `committed` raised, its ledger row and its
 * `inventory_level.updated` event, in the order's one round trip instead of four per level.
 * `available` before the change answers how much of each commitment was oversold. Commitments
 * may exceed the quantity on hand (the sale happened), so no invariant can refuse them.
 */
const COMMIT_LEVELS_SQL = `
WITH wanted AS (
  SELECT * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[]) AS w(level_id, quantity, adjustment_id, event_id)
), locked AS MATERIALIZED (
  SELECT l.id FROM "InventoryLevel" l WHERE l.id = ANY($2::text[]) AND l."storeId" = $1 ORDER BY l.id FOR UPDATE
), changed AS (
  UPDATE "InventoryLevel" l SET committed = l.committed + w.quantity, "updatedAt" = $6::timestamp(3)
  FROM wanted w JOIN locked k ON k.id = w.level_id
  WHERE l.id = w.level_id
  RETURNING l.*, w.quantity AS delta, w.adjustment_id, w.event_id
), ledger AS (
  INSERT INTO "InventoryAdjustment" (id, "levelId", reason, "referenceId", "quantityDelta", "committedDelta", "reservedDelta", "buildableDelta", "createdAt")
  SELECT adjustment_id, id, $7, $8, 0, delta, 0, 0, $6::timestamp(3) FROM changed
), announced AS (
  SELECT 'inventory_level.updated'::text AS topic, id AS "subjectId", event_id, jsonb_build_object(
    'id', id, 'productId', "productId", 'locationId', "locationId", 'quantity', quantity,
    'available', quantity - committed - reserved, 'committed', committed, 'reserved', reserved, 'buildable', buildable,
    'updatedAt', $9::text,
    'change', jsonb_build_object('reason', $7::text, 'referenceId', $8::text, 'quantityDelta', 0, 'committedDelta', delta, 'reservedDelta', 0, 'buildableDelta', 0)
  ) AS data FROM changed
), ${recordingCtes('event_id', '$1::text')}
SELECT id, delta, quantity - committed - reserved + delta AS "availableBefore" FROM changed`;

/**
 * Commits stock of several of the store's levels for one cause, in one statement: see
 * COMMIT_LEVELS_SQL. Answers, for each level, how many of its units were oversold: what its
 * commitment exceeded of the quantity available before it.
 */
export async function commitLevels(tx: Tx, storeId: string, commitments: { levelId: string; quantity: number }[], cause: ChangeCause): Promise<Map<string, number>> {
  if (commitments.length === 0) return new Map();
  const sorted = [...commitments].sort((a, b) => (a.levelId < b.levelId ? -1 : a.levelId > b.levelId ? 1 : 0));
  const now = new Date().toISOString();
  const rows = await tx.$queryRawUnsafe<{ id: string; delta: number; availableBefore: number }[]>(
    COMMIT_LEVELS_SQL,
    storeId,
    sorted.map((c) => c.levelId),
    sorted.map((c) => c.quantity),
    sorted.map(() => newId('inventoryAdjustment')),
    sorted.map(() => newId('event')),
    now,
    cause.reason,
    cause.referenceId ?? null,
    // The same time as text: a parameter has one type, and the event shows the time as JavaScript writes it.
    now,
  );
  const oversold = new Map(rows.map((row) => [row.id, Math.max(0, Number(row.delta) - Math.max(0, Number(row.availableBefore)))]));
  const missing = sorted.find((c) => !oversold.has(c.levelId));
  if (missing) throw new NotFound(`inventory level ${missing.levelId} not found`, { path: 'levelId' });
  return oversold;
}

// ---------------------------------------------------------------- adjustments

export interface AdjustmentInput {
  inventoryLevelId?: string | null;
  productId?: string | null;
  locationId?: string | null;
  quantityDelta?: number | null;
  committedDelta?: number | null;
  reservedDelta?: number | null;
  buildableDelta?: number | null;
  reason?: string | null;
  referenceId?: string | null;
}

const ADJUSTMENT_PATHS: Record<keyof LevelDelta, string> = {
  quantity: 'quantityDelta',
  committed: 'committedDelta',
  reserved: 'reservedDelta',
  buildable: 'buildableDelta',
};

/**
 * An inventory app's adjustment of one level, named by its id or by product and
 * location (the level is then created when missing: the product must be the
 * store's and the location one the store may use). A fulfillment service may
 * adjust the levels at its own locations.
 */
export async function adjustInventory(db: Db | Tx, storeId: string, input: AdjustmentInput): Promise<InventoryLevel> {
  const issues = new InputIssues();
  const reason = requiredText(issues, 'reason', input.reason, 255);
  const referenceId = optionalText(issues, 'referenceId', input.referenceId, 255);
  const delta: LevelDelta = {};
  for (const [key, path] of Object.entries(ADJUSTMENT_PATHS) as [keyof LevelDelta, string][]) {
    const value = input[path as keyof AdjustmentInput] as number | null | undefined;
    if (value !== undefined && value !== null && count(issues, path, value, -1_000_000) !== 0) delta[key] = value;
  }
  if (Object.keys(delta).length === 0 && issues.list.length === 0) {
    issues.add('quantityDelta', 'at least one of quantityDelta, committedDelta, reservedDelta, buildableDelta must be a non-zero change');
  }
  const byLevel = Boolean(input.inventoryLevelId);
  if (byLevel && (input.productId || input.locationId)) {
    issues.add('inventoryLevelId', 'name the level either by inventoryLevelId or by productId and locationId, not both');
  } else if (!byLevel && !(input.productId && input.locationId)) {
    issues.add(input.productId ? 'locationId' : 'productId', 'name the level by inventoryLevelId, or by productId and locationId');
  }
  issues.throwIfAny();

  return inTransaction(db, async (tx) => {
    let levelId: string;
    if (byLevel) {
      const level = await tx.inventoryLevel.findFirst({ where: { id: input.inventoryLevelId!, ...visibleLevelWhere(storeId) }, select: { id: true } });
      if (!level) throw new NotFound(`inventory level ${input.inventoryLevelId} not found`, { path: 'inventoryLevelId' });
      levelId = level.id;
    } else {
      const product = await tx.product.findFirst({ where: { id: input.productId!, storeId }, select: { id: true, storeId: true } });
      if (!product) throw new NotFound(`product ${input.productId} not found`, { path: 'productId' });
      const location = await tx.location.findFirst({ where: { id: input.locationId!, ...visibleLocationWhere(storeId) }, select: { id: true } });
      if (!location) throw new NotFound(`location ${input.locationId} not found`, { path: 'locationId' });
      levelId = (await ensureLevel(tx, product, location.id)).id;
    }
    return changeLevel(tx, levelId, delta, { reason, referenceId: referenceId ?? null }, ADJUSTMENT_PATHS);
  });
}
