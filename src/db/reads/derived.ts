// Values the statement computes from a row's own columns, selected by name as a column is
// (`select: { available: true }`): a figure every reader derives the same way then travels as
// one value, not as the columns it is made of (on PGlite every byte of JSON the statement
// builds, and every value it converts, runs in the service's own thread). Prisma knows none of
// them: they exist for reads only, and cannot be filtered or sorted by.

export interface DerivedValue {
  /** The value's SQL, given the SQL of a column of the row by its field name. */
  sql(column: (field: string) => string): string;
}

export const DERIVED_VALUES: Readonly<Record<string, Readonly<Record<string, DerivedValue>>>> = {
  InventoryLevel: {
    // domain/inventory.ts availableOf: negative when orders committed more than was on hand.
    available: { sql: (column) => `${column('quantity')} - ${column('committed')} - ${column('reserved')}` },
  },
};
