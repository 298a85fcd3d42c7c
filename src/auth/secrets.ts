import crypto from 'node:crypto';

/** A new API or subscriber secret: 32 random bytes, URL-safe. */
export function generateSecret(): string {
  return `sk_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Secrets carry 256 random bits, so one SHA-256 is enough to store them safely. */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
