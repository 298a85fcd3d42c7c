// A read's rows travel from PostgreSQL as JSON arrays, each value at its key's place, and become
// objects here. Writing a row as an object costs PostgreSQL its keys again for every row: the
// returns page's statement took about a third longer to run built of objects (2.1-2.5 ms against
// 1.7-1.8 alone) and was 87 KB long against 36 KB, while parsing the arrays and making them objects
// takes JavaScript about half as long as parsing the objects did (rowsReader).

/** A row's keys in the order of its array, and how each value in it is read. */
export interface RowShape {
  keys: string[];
  /** Per key, how its value is read; undefined where it is kept as it came. */
  readings: (ValueReading | undefined)[];
}

/** A to-one relation (its row, or null), a list relation (its rows), or a timestamp (isoTimestamp). */
export type ValueReading = { row: RowShape } | { rows: RowShape } | 'timestamp';

type Row = Record<string, unknown>;
type RowReader = (values: unknown[]) => Row;

/** The objects of the rows `values` carries in `shape`, made key by key: for a shape read once. */
export function rowsOf(shape: RowShape, values: unknown[][]): Row[] {
  return values.map((row) => rowOf(shape, row));
}

function rowOf(shape: RowShape, values: unknown[]): Row {
  const row: Row = {};
  const { keys, readings } = shape;
  for (let i = 0; i < keys.length; i++) {
    const value = values[i];
    const reading = readings[i];
    if (reading === undefined || value === null) row[keys[i]] = value;
    else if (reading === 'timestamp') row[keys[i]] = isoTimestamp(value as string);
    else if ('row' in reading) row[keys[i]] = rowOf(reading.row, value as unknown[]);
    else row[keys[i]] = rowsOf(reading.rows, value as unknown[][]);
  }
  return row;
}

/**
 * A function making the objects of rows in `shape`, for a shape read again and again (a kept
 * read's). Its rows are object literals of the shape's keys: V8 makes each an object of one fixed
 * layout at once, where rowsOf adds the keys one by one through a keyed store each; making a
 * returns page's objects took half as long (0.13-0.15 ms against 0.26, parsing included).
 * Writing the function costs more than reading a page key by key, so a read made once uses rowsOf.
 */
export function rowsReader(shape: RowShape): (values: unknown[][]) => Row[] {
  const read = rowReader(shape);
  return (values) => {
    const rows = new Array<Row>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = read(values[i]);
    return rows;
  };
}

function rowReader(shape: RowShape): RowReader {
  const reads: ((value: never) => unknown)[] = [];
  const entries = shape.keys.map((key, i) => {
    // The keys are model field names the compiler checked (compile.ts row); a literal
    // `"__proto__":` would set the object's prototype instead of a key.
    if (key === '__proto__') throw new Error('a row cannot have the key __proto__');
    const reading = shape.readings[i];
    if (reading === undefined) return `${JSON.stringify(key)}: v[${i}]`;
    reads.push(reading === 'timestamp' ? isoTimestamp : 'row' in reading ? rowReader(reading.row) : rowsReader(reading.rows));
    return `${JSON.stringify(key)}: v[${i}] === null ? null : r[${reads.length - 1}](v[${i}])`;
  });
  // The function's text is the shape's keys (as JSON string literals) and positions: nothing a caller wrote.
  return new Function('r', `return (v) => ({ ${entries.join(', ')} });`)(reads) as RowReader;
}

/**
 * A timestamp as PostgreSQL writes it in JSON (ISO 8601 without a zone, its seconds' fraction
 * left out when zero and trimmed of trailing zeros) as Date#toISOString writes it: milliseconds
 * always, and Z. PostgreSQL writes that form by itself for less than to_char takes to write the
 * other: the returns page's statement ran about 5% shorter (0.96-0.99 ms against 1.01-1.06 in
 * interleaved runs, its 130 timestamps finished here in microseconds).
 */
function isoTimestamp(text: string): string {
  const point = text.indexOf('.');
  if (point === -1) return `${text}.000Z`;
  return `${text.slice(0, point)}.${text.slice(point + 1, point + 4).padEnd(3, '0')}Z`;
}
