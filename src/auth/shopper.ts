// The shopper portal's caller: no secret, only an order they proved they own (order
// name + e-mail, or a signed link). The portal runs a fixed set of operations with
// a context holding just the scopes those need, on the store in the path.
import crypto from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AuthContext } from './authenticate.ts';

const LINK_TTL_S = 30 * 24 * 60 * 60;
let linkKey = crypto.createHash('sha256').update('portal-link:development-cursor-secret').digest();

/** Set once at start-up; links are signed with a key derived from CURSOR_SECRET. */
export function configurePortalLinkSecret(secret: string): void {
  linkKey = crypto.createHash('sha256').update(`portal-link:${secret}`).digest();
}

function mac(storeId: string, orderId: string, expires: number): string {
  return crypto.createHmac('sha256', linkKey).update(`${storeId}\n${orderId}\n${expires}`).digest('base64url');
}

/** A token that lets a shopper open one order's return page (valid 30 days). */
export function signPortalToken(storeId: string, orderId: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + LINK_TTL_S;
  return `${expires}.${mac(storeId, orderId, expires)}`;
}

export function verifyPortalToken(storeId: string, orderId: string, token: string | null | undefined, now = Date.now()): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= now) return false;
  const expected = Buffer.from(mac(storeId, orderId, expires));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/**
 * The shopper's session as the audit trail names it: derived from the browser's form token (the
 * portal's only per-browser state), so one browser's requests share it while the token itself,
 * which the portal's forms must echo, appears nowhere.
 */
export function shopperSession(formToken: string): string {
  return `shp_${crypto.createHash('sha256').update(`shopper-session:${formToken}`).digest('base64url').slice(0, 22)}`;
}

/** The portal's context for a merchant store, acting for the shopper whose browser holds `formToken`; null when there is no such store. */
export async function shopperAuth(prisma: PrismaClient, storeId: string, formToken: string): Promise<AuthContext | null> {
  if (storeId.length > 64) return null;
  const store = await prisma.store.findUnique({ where: { id: storeId }, select: { id: true, name: true, kind: true } });
  if (!store || store.kind !== 'MERCHANT') return null;
  return {
    store,
    client: { id: 'shopper-portal', name: 'shopper portal' },
    scopes: new Set(['orders_read', 'returns_read', 'returns_write']),
    shopper: { session: shopperSession(formToken) },
  };
}
