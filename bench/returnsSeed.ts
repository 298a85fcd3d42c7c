// The returns pages the benches read: orders of three lines, each with two returns of one
// unit a line, made through the domain as a client would make them.
import type { Database } from '../src/db/database.ts';
import { createOrder } from '../src/domain/orders.ts';
import { createReturn } from '../src/domain/returns/creation.ts';

export async function seedOrdersWithReturns(db: Database, storeId: string, orders: number, orderIdPrefix = 'bench'): Promise<void> {
  for (let i = 0; i < orders; i++) {
    const order = await createOrder(db.prisma, storeId, {
      orderId: `${orderIdPrefix}-${i}`,
      createdAt: new Date(Date.UTC(2026, 0, 1 + (i % 28))).toISOString(),
      customer: { email: `buyer${i}@example.com`, firstName: 'Bench', lastName: `Buyer ${i}` },
      lineItems: [1, 2, 3].map((n) => ({ id: `line-${n}`, productId: `p-${n}`, title: `Product ${n}`, quantity: 4, price: 12.5 })),
      totalPrice: 150,
      currency: 'USD',
    });
    const lines = await db.prisma.orderLineItem.findMany({ where: { orderId: order.id }, orderBy: { position: 'asc' } });
    for (let r = 0; r < 2; r++) {
      await createReturn(db.prisma, storeId, { orderId: order.id, items: lines.map((l) => ({ lineItemId: l.id, quantity: 1, reason: 'too small' })) });
    }
  }
}
