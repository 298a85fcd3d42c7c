// Dashboard sign-in: a merchant user's password checked, and their database sessions. The
// session cookie carries a random token; the database keeps only its SHA-256 and
// the session's CSRF synchronizer token.
import crypto from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { DECOY_HASH, verifyPassword } from './passwords.ts';
import { hashSecret } from './secrets.ts';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface MerchantSession {
  user: { id: string; email: string };
  store: { id: string; name: string; kind: 'MERCHANT' | 'FULFILLMENT_SERVICE' };
  csrfToken: string;
}

/** The user when e-mail and password match; the same work is done when the e-mail is unknown. */
export async function checkLogin(prisma: PrismaClient, storeId: string, email: string, password: string): Promise<{ id: string } | null> {
  const user = await prisma.merchantUser.findUnique({ where: { storeId_email: { storeId, email: email.trim().toLowerCase() } } });
  const ok = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
  return user && ok ? { id: user.id } : null;
}

/** Starts a session; returns the cookie token (shown to the browser only). */
export async function startSession(prisma: PrismaClient, userId: string, now = Date.now()): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await prisma.merchantSession.create({
    data: {
      tokenHash: hashSecret(token),
      userId,
      csrfToken: crypto.randomBytes(32).toString('base64url'),
      expiresAt: new Date(now + SESSION_TTL_MS),
    },
  });
  return token;
}

export async function loadSession(prisma: PrismaClient, token: string | undefined, now = Date.now()): Promise<MerchantSession | null> {
  if (!token || token.length > 100) return null;
  const session = await prisma.merchantSession.findUnique({
    where: { tokenHash: hashSecret(token) },
    select: { expiresAt: true, csrfToken: true, user: { select: { id: true, email: true, store: { select: { id: true, name: true, kind: true } } } } },
  });
  if (!session || session.expiresAt.getTime() <= now) return null;
  return { user: { id: session.user.id, email: session.user.email }, store: session.user.store, csrfToken: session.csrfToken };
}

export async function endSession(prisma: PrismaClient, token: string): Promise<void> {
  await prisma.merchantSession.deleteMany({ where: { tokenHash: hashSecret(token) } });
}

function xor(a: Buffer, b: Buffer): Buffer {
  return Buffer.from(a.map((byte, i) => byte ^ b[i]));
}

/**
 * The session's CSRF token as a page carries it: a fresh random pad, then the token XOR the
 * pad (as Rails and Django mask theirs). No two pages carry the same string, so a compressed
 * page that reflects a guess beside the token tells nothing by its length (BREACH).
 */
export function maskCsrfToken(token: string): string {
  const bytes = Buffer.from(token);
  const pad = crypto.randomBytes(bytes.length);
  return Buffer.concat([pad, xor(bytes, pad)]).toString('base64url');
}

/** Whether a submitted (masked) CSRF token unmasks to the session's, compared in constant time. */
export function sameCsrfToken(expected: string, submitted: string | undefined): boolean {
  if (!submitted || !/^[\w-]+$/.test(submitted)) return false;
  const token = Buffer.from(expected);
  const masked = Buffer.from(submitted, 'base64url');
  if (masked.length !== 2 * token.length) return false;
  return crypto.timingSafeEqual(xor(masked.subarray(token.length), masked.subarray(0, token.length)), token);
}
