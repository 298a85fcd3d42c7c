// A read's rows travel from PostgreSQL as JSON arrays, each value at its key's place, and become
// objects here. Writing a row as an object costs PostgreSQL its keys again for every row: the
// returns page's statement took about a third longer to run built of objects (2.1-2.5 ms against
// 1.7-1.8 alone) and was 87 KB long against 36 KB, while parsing the arrays and making them objects
// takes JavaScript no longer than parsing the objects did.

/** A row's keys in the order of its array, and how each value nested in it is read. */
export interface RowShape {
  keys: string[];
  /** Per key, the shape of a relation's row or rows; undefined where the value is kept as it came. */
  nested: (NestedShape | undefined)[];
}

/** A to-one relation (its row, or null), or a list relation (its rows). */
export type NestedShape = { row: RowShape } | { rows: RowShape };

/** The object of the row `values` carries in `shape`. */
export function rowOf(shape: RowShape, values: unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const { keys, nested } = shape;
  for (let i = 0; i < keys.length; i++) {
    const value = values[i];
    const inner = nested[i];
    if (inner === undefined || value === null) row[keys[i]] = value;
    else if ('row' in inner) row[keys[i]] = rowOf(inner.row, value as unknown[]);
    else row[keys[i]] = rowsOf(inner.rows, value as unknown[][]);
  }
  return row;
}

/** The objects of the rows `values` carries in `shape`. */
export function rowsOf(shape: RowShape, values: unknown[][]): Record<string, unknown>[] {
  const rows = new Array<Record<string, unknown>>(values.length);
  for (let i = 0; i < values.length; i++) rows[i] = rowOf(shape, values[i]);
  return rows;
}
