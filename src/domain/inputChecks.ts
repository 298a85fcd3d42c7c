// Input checks every domain write runs before it writes anything: each check records its
// problem in an InputIssues under the input's path, so one answer names every problem at once.
import { Invalid, type FieldIssue } from './errors.ts';
import { isCurrencyCode, toDecimal, type DecimalValue } from './money.ts';

/** Collects every problem of one input so a client can fix them all at once. */
export class InputIssues {
  readonly list: FieldIssue[] = [];

  add(path: string, message: string): void {
    this.list.push({ path, message });
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw Invalid.of(this.list);
  }
}

/** A required text: trimmed, non-empty, at most `max` characters. */
export function requiredText(issues: InputIssues, path: string, value: string | null | undefined, max = 255): string {
  const text = value?.trim() ?? '';
  if (!text) issues.add(path, 'must not be empty');
  else if (text.length > max) issues.add(path, `must be at most ${max} characters`);
  return text;
}

/** An optional text: undefined leaves it unchanged, null or blank clears it. */
export function optionalText(issues: InputIssues, path: string, value: string | null | undefined, max = 255): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value?.trim() ?? '';
  if (text.length > max) issues.add(path, `must be at most ${max} characters`);
  return text === '' ? null : text;
}

/** A list of short texts (tags, barcodes): trimmed, blanks refused, duplicates dropped. */
export function textList(issues: InputIssues, path: string, values: readonly string[] | null | undefined, maxItems = 250): string[] | undefined {
  if (values === undefined) return undefined;
  if (values === null) {
    issues.add(path, 'must be a list (use [] to clear it)');
    return undefined;
  }
  if (values.length > maxItems) issues.add(path, `must have at most ${maxItems} entries`);
  const out: string[] = [];
  values.forEach((value, index) => {
    const text = value.trim();
    if (!text) issues.add(`${path}.${index}`, 'must not be empty');
    else if (text.length > 255) issues.add(`${path}.${index}`, 'must be at most 255 characters');
    else if (!out.includes(text)) out.push(text);
  });
  return out;
}

export function countryCode(issues: InputIssues, path: string, value: string | null | undefined): string | null | undefined {
  const text = optionalText(issues, path, value, 2);
  if (text && !/^[A-Za-z]{2}$/.test(text)) issues.add(path, 'must be an ISO 3166-1 alpha-2 country code');
  return text ? text.toUpperCase() : text;
}

export function currencyCode(issues: InputIssues, path: string, value: string | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  const code = value.trim().toUpperCase();
  if (!isCurrencyCode(code)) issues.add(path, 'must be an ISO 4217 currency code');
  return code;
}

/** A money amount: exact decimal, never negative. */
export function amount(issues: InputIssues, path: string, value: string | null | undefined): DecimalValue | null | undefined {
  if (value === undefined || value === null) return value;
  const decimal = toDecimal(value);
  if (decimal.isNegative()) issues.add(path, 'must not be negative');
  return decimal;
}

export function httpUrl(issues: InputIssues, path: string, value: string | null | undefined): string | null | undefined {
  const text = optionalText(issues, path, value, 2048);
  if (!text) return text;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) issues.add(path, 'must be an http or https URL');
  return text;
}

/** Counts of units: whole numbers within [min, max]. */
export function count(issues: InputIssues, path: string, value: number, min: number, max = 1_000_000): number {
  if (!Number.isInteger(value)) issues.add(path, 'must be a whole number');
  else if (value < min) issues.add(path, min === 0 ? 'must not be negative' : `must be at least ${min}`);
  else if (value > max) issues.add(path, `must be at most ${max}`);
  return value;
}

export function measure(issues: InputIssues, path: string, value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isFinite(value) || value < 0) issues.add(path, 'must be a number of at least 0');
  return value;
}
