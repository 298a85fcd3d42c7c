// An order creation input for search and listing fixtures: lines named by SKU and title, the
// rest fixed (placed on 2026-10-01, USD, 20.00 a unit).
import type { OrderInput } from '../../src/domain/orders.ts';

export function orderInput(
  orderId: string,
  customer: OrderInput['customer'],
  lines: { sku: string; title: string; quantity?: number }[],
  extra: Partial<OrderInput> = {},
): OrderInput {
  return {
    orderId,
    createdAt: '2026-10-01T10:00:00Z',
    customer,
    currency: 'USD',
    totalPrice: '50',
    lineItems: lines.map((line, i) => ({ id: `${orderId}-L${i}`, productId: `ext-${line.sku}`, title: line.title, quantity: line.quantity ?? 2, sku: line.sku, price: '20' })),
    ...extra,
  };
}
