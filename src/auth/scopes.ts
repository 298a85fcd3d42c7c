export const SCOPES = [
  'customers_read',
  'customers_write',
  'orders_read',
  'orders_write',
  'returns_read',
  'returns_write',
  'inventory_read',
  'inventory_write',
  'inbound_shipments_read',
  'products_read',
  'products_write',
  'locations_read',
  'locations_write',
  'webhooks_read',
  'webhooks_write',
  'storefront_events_write',
  'customer_events_write',
  'invoices_read',
  'audit_read',
  // A shopper's data export and erasure (domain/privacy.ts): more than reading or writing customers.
  'customers_privacy',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
