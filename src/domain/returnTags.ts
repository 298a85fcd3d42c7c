// Return tags the store defines (the reference's return-tag.schema): a name and a pill
// theme. Returns carry tag names in Return.tags, so a rename or a delete rewrites every
// return of the store that names the tag, in the same transaction as the tag itself.
import { Prisma } from '../generated/prisma/client.ts';
import { Conflict, Invalid, NotFound } from './errors.ts';
import { recordEvent } from './events.ts';
import { inTransaction, type Db, type Tx } from './tx.ts';

/** The reference's pill-theme.schema. */
export const PILL_THEMES = [
  'NORMAL', 'PRIMARY_LIGHT', 'LIGHT_PINK', 'DANGER', 'NEUTRAL_YELLOW', 'SUCCESS', 'NEUTRAL_BLUE', 'PRIMARY', 'SOLID_WHITE',
  'SOLID_PINK', 'SOLID_RED', 'SOLID_ORANGE', 'SOLID_YELLOW', 'SOLID_GREEN', 'SOLID_LIGHT_BLUE', 'SOLID_NAVY', 'SOLID_BLACK',
  'BRAND', 'GRAY_BLUE', 'WHITE_SUCCESS', 'GRAY_ALTERNATE', 'BRAND_ALTERNATE', 'ERROR_ALTERNATE', 'WARNING_ALTERNATE',
  'SUCCESS_ALTERNATE', 'GRAY_BLUE_ALTERNATE', 'BLUE_LIGHT_ALTERNATE', 'BLUE_ALTERNATE', 'INDIGO_ALTERNATE', 'PURPLE_ALTERNATE',
  'PINK_ALTERNATE', 'ORANGE_ALTERNATE', 'BLACK_ALTERNATE', 'WHITE_ALTERNATE', 'WHITE_SUCCESS_ALTERNATE',
] as const;

const MAX_NAME_LENGTH = 100;

export interface UpsertReturnTagInput {
  name: string;
  pillTheme: string;
  /** Renames the tag (and every return naming it) when set and different from `name`. */
  newName?: string | null;
}

function checkName(name: unknown, path: string): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw new Invalid(`${path} must be 1 to ${MAX_NAME_LENGTH} characters`, { path });
  }
  return name;
}

export function listReturnTags(db: Db | Tx, storeId: string) {
  return db.returnTag.findMany({ where: { storeId }, orderBy: { name: 'asc' } });
}

/** Replaces `from` by `to` (or drops it when `to` is null) in every return of the store naming it. */
async function rewriteReturns(tx: Tx, storeId: string, from: string, to: string | null): Promise<void> {
  await tx.$executeRaw`
    UPDATE "Return" SET tags = ${to === null ? Prisma.sql`array_remove(tags, ${from})` : Prisma.sql`array_replace(tags, ${from}, ${to})`},
                        "updatedAt" = now()
    WHERE "storeId" = ${storeId} AND ${from} = ANY(tags)`;
}

/**
 * The tag, locked until the transaction ends: a rename or delete committed meanwhile cannot
 * take it away between this check and the change (it is then NOT_FOUND, never a failed write).
 */
async function lockTag(tx: Tx, storeId: string, name: string): Promise<{ numericId: number }> {
  const [tag] = await tx.$queryRaw<{ numericId: number }[]>`SELECT "numericId" FROM "ReturnTag" WHERE "storeId" = ${storeId} AND name = ${name} FOR UPDATE`;
  if (!tag) throw new NotFound(`return tag ${name} does not exist`, { path: 'name' });
  return tag;
}

/** Creates the tag, changes its theme, or renames it (refused when the source is absent or the target taken). */
export async function upsertReturnTag(db: Db | Tx, storeId: string, input: UpsertReturnTagInput) {
  const name = checkName(input.name, 'name');
  const newName = input.newName == null || input.newName === name ? null : checkName(input.newName, 'newName');
  if (!PILL_THEMES.includes(input.pillTheme as (typeof PILL_THEMES)[number])) {
    throw new Invalid(`pillTheme must be one of ${PILL_THEMES.join(', ')}`, { path: 'pillTheme' });
  }
  return inTransaction(db, async (tx) => {
    const existing = await tx.returnTag.findUnique({ where: { storeId_name: { storeId, name } } });
    let tag;
    if (newName !== null) {
      await lockTag(tx, storeId, name);
      if (await tx.returnTag.findUnique({ where: { storeId_name: { storeId, name: newName } } })) {
        throw new Conflict(`return tag ${newName} already exists`, { path: 'newName' });
      }
      tag = await tx.returnTag.update({ where: { storeId_name: { storeId, name } }, data: { name: newName, pillTheme: input.pillTheme } });
      await rewriteReturns(tx, storeId, name, newName);
    } else {
      tag = await tx.returnTag.upsert({
        where: { storeId_name: { storeId, name } },
        create: { storeId, name, pillTheme: input.pillTheme },
        update: { pillTheme: input.pillTheme },
      });
    }
    await recordEvent(tx, {
      storeId,
      topic: 'return_tag.updated',
      subjectId: `${storeId}:${tag.numericId}`,
      data: { name: tag.name, previousName: newName !== null ? name : null, pillTheme: tag.pillTheme, created: !existing },
    });
    return tag;
  });
}

/** Deletes the tag and strips it from every return of the store. */
export async function deleteReturnTag(db: Db, storeId: string, name: string): Promise<void> {
  checkName(name, 'name');
  await inTransaction(db, async (tx) => {
    const existing = await lockTag(tx, storeId, name);
    await tx.returnTag.delete({ where: { storeId_name: { storeId, name } } });
    await rewriteReturns(tx, storeId, name, null);
    await recordEvent(tx, { storeId, topic: 'return_tag.updated', subjectId: `${storeId}:${existing.numericId}`, data: { name, deleted: true } });
  });
}
