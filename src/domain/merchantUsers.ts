// Merchant users: the people of a store who sign in to the dashboard (auth/merchantUsers.ts
// checks their passwords and keeps their sessions).
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../auth/passwords.ts';
import { Conflict, Invalid, NotFound } from './errors.ts';
import { newId } from './ids.ts';
import { inTransaction } from './tx.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createMerchantUser(
  prisma: PrismaClient | Prisma.TransactionClient,
  input: { storeId: string; email: string; password: string },
): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new Invalid('email must be an e-mail address', { path: 'email' });
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new Invalid(`password must have at least ${MIN_PASSWORD_LENGTH} characters`, { path: 'password' });
  }
  const store = await prisma.store.findUnique({ where: { id: input.storeId }, select: { id: true } });
  if (!store) throw new NotFound(`store ${input.storeId} not found`, { path: 'store' });
  const existing = await prisma.merchantUser.findUnique({ where: { storeId_email: { storeId: input.storeId, email } } });
  if (existing) throw new Conflict(`a user ${email} already exists in store ${input.storeId}`, { path: 'email' });
  const passwordHash = await hashPassword(input.password);
  const user = await inTransaction(prisma, (tx) => tx.merchantUser.create({ data: { id: newId('merchantUser'), storeId: input.storeId, email, passwordHash } }));
  return { id: user.id, email: user.email };
}
