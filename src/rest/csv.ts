// CSV as RFC 4180 writes it (CRLF line ends, a field with a comma, quote, CR or LF is
// quoted and its quotes doubled), made safe to open in a spreadsheet: a cell starting
// with = + - @ tab or CR would be read as a formula, so it gets a leading apostrophe
// (OWASP "CSV injection"). Merchant text (coverage titles) reaches these cells.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The header row, then one row per record; every line ends with CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
