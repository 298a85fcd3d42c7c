// The shopper portal's caller: no secret, only an order they proved they own (order
// name + e-mail, or a signed link). The portal runs a fixed set of operations with
// a context holding just the scopes those need, on the store in the path.
import crypto from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AuthContext } from './authenticate.ts';

const LINK_TTL_S = 30 * 24 * 60 * 60;
/**
 * Signs the links that open one order's return page for a shopper, and checks them, with a key
 * derived from CURSOR_SECRET. Made once per process (process/contextServices.ts).
 */
export class PortalLinks {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = crypto.createHash('sha256').update(`portal-link:${secret}`).digest();
  }

  #mac(storeId: string, orderId: string, expires: number): string {
    return crypto.createHmac('sha256', this.#key).update(`${storeId}\n${orderId}\n${expires}`).digest('base64url');
  }

  /** A token that lets a shopper open one order's return page (valid 30 days). */
  sign(storeId: string, orderId: string, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + LINK_TTL_S;
    return `${expires}.${this.#mac(storeId, orderId, expires)}`;
  }

  verify(storeId: string, orderId: string, token: string | null | undefined, now = Date.now()): boolean {
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
    if (!match) return false;
    const expires = Number(match[1]);
    if (expires * 1000 <= now) return false;
    const expected = Buffer.from(this.#mac(storeId, orderId, expires));
    const given = Buffer.from(match[2]);
    return expected.length === given.length && crypto.timingSafeEqual(expected, given);
  }
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
