// CSV as RFC 4180 writes it (CRLF line ends, a field with a comma, quote, CR or LF is
// quoted and its quotes doubled), made safe to open in a spreadsheet: a cell starting
// with = + - @ tab or CR would be read as a formula, so it gets a leading apostrophe
// (OWASP "CSV injection"). Merchant text (coverage titles) reaches these cells.
import type { AnswerLayout } from '../http/streamedAnswer.ts';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The header row, then one row per record (each line ends with CRLF), written as the records are read. */
export function csvLayout(header: readonly string[]): AnswerLayout<readonly string[]> {
  return { contentType: 'text/csv; charset=utf-8; header=present', open: csvLine(header), separator: '', close: '', item: csvLine };
}
