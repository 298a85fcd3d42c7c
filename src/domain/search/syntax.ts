// The search syntax every list that searches takes (`query:` on v3, the dashboard's search
// boxes), in the spirit of Shopify's: free words and "quoted phrases" match anywhere in the
// record's text; `field:value` narrows to one field, `field:>=value` (> >= < <=) compares dates
// and amounts; `-term` or `NOT term` excludes; `a OR b` is either; terms side by side (or with
// AND) must all hold; parentheses group. OR binds tighter than the implicit AND, as Shopify's
// does: `vip OR gift status:open` is `(vip OR gift) AND status:open`.
// A phone number typed as people type it (`+1 415-555-0107`, `(415) 555 0107`) is one term.
// This module only parses; src/domain/search/kinds.ts says which fields a list has.
import { Invalid } from '../errors.ts';

export type Comparison = '=' | '>' | '>=' | '<' | '<=';

export type SearchNode =
  | { kind: 'and'; items: SearchNode[] }
  | { kind: 'or'; items: SearchNode[] }
  | { kind: 'not'; item: SearchNode }
  /** Free text: a word, or a phrase when quoted. */
  | { kind: 'text'; text: string }
  /** A phone number as typed (`raw`) and as its digits. */
  | { kind: 'phone'; raw: string; digits: string }
  /** `field:value`; `term` is the whole term as written, for errors. */
  | { kind: 'field'; field: string; comparison: Comparison; value: string; term: string };

/** Beyond these a query is refused: each term is an index lookup. */
export const SEARCH_LIMITS = { length: 1000, terms: 30, depth: 8 } as const;

/** At least this many digits make a run of digits, spaces and `+()-.` a phone number. */
const PHONE_DIGITS = 7;

type Token =
  | { type: 'open' | 'close' | 'or' | 'and' | 'not' }
  | { type: 'term'; node: SearchNode; negated: boolean };

function refuse(message: string): never {
  throw new Invalid(`query: ${message}`, { path: 'query' });
}

const PHONE = /\+?\(?\d[\d\s().-]*\d/y;
const FIELD = /([a-z][a-z0-9_]*):/iy;
const COMPARISON = /(>=|<=|>|<|=)?/y;

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const atBoundary = (index: number) => index >= query.length || /\s/.test(query[index]) || query[index] === ')';
  const readValue = (): { value: string; quoted: boolean } => {
    if (query[at] === '"') {
      const end = closingQuote(at);
      const value = unescape(query.slice(at + 1, end));
      at = end + 1;
      return { value, quoted: true };
    }
    const start = at;
    while (at < query.length && !/\s/.test(query[at]) && query[at] !== ')' && query[at] !== '(') at++;
    return { value: query.slice(start, at), quoted: false };
  };
  /** A phone number as typed, spaces and all, when one starts here. */
  const readPhone = (): string | undefined => {
    PHONE.lastIndex = at;
    const phone = PHONE.exec(query);
    if (!phone || !atBoundary(PHONE.lastIndex) || phone[0].replace(/\D/g, '').length < PHONE_DIGITS) return undefined;
    at = PHONE.lastIndex;
    return phone[0].trim();
  };
  const closingQuote = (open: number): number => {
    for (let i = open + 1; i < query.length; i++) {
      if (query[i] === '\\') i++;
      else if (query[i] === '"') return i;
    }
    refuse(`a quote opened at character ${open + 1} is never closed`);
  };
  while (at < query.length) {
    const char = query[at];
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if (char === ')') {
      tokens.push({ type: 'close' });
      at++;
      continue;
    }
    const phone = readPhone();
    if (phone !== undefined) {
      tokens.push({ type: 'term', negated: false, node: { kind: 'phone', raw: phone, digits: phone.replace(/\D/g, '') } });
      continue;
    }
    if (char === '(') {
      tokens.push({ type: 'open' });
      at++;
      continue;
    }
    let negated = false;
    if (char === '-' && at + 1 < query.length && !/\s/.test(query[at + 1])) {
      negated = true;
      at++;
    }
    if (negated && query[at] === '(') {
      tokens.push({ type: 'not' });
      continue;
    }
    FIELD.lastIndex = at;
    const field = FIELD.exec(query);
    if (field) {
      const start = negated ? at - 1 : at;
      at = FIELD.lastIndex;
      COMPARISON.lastIndex = at;
      const comparison = (COMPARISON.exec(query)?.[1] ?? '=') as Comparison;
      at = COMPARISON.lastIndex;
      const value = readPhone() ?? readValue().value;
      const term = query.slice(start, at);
      if (value.trim() === '') refuse(`"${term}" has no value after the colon`);
      tokens.push({ type: 'term', negated, node: { kind: 'field', field: field[1].toLowerCase(), comparison, value, term } });
      continue;
    }
    const { value, quoted } = readValue();
    if (!quoted && !negated && (value === 'OR' || value === 'AND' || value === 'NOT')) {
      tokens.push({ type: value === 'OR' ? 'or' : value === 'AND' ? 'and' : 'not' });
      continue;
    }
    if (value.trim() === '') {
      if (quoted) continue; // "" narrows nothing
      refuse(`a lone "${negated ? '-' : query[at]}" at character ${at + 1}`);
    }
    tokens.push({ type: 'term', negated, node: quoted ? phraseNode(value) : { kind: 'text', text: value } });
  }
  return tokens;
}

/** A quoted phone number (`"(415) 555 0107"`) is that phone, found however it was stored; any other phrase is text. */
function phraseNode(phrase: string): SearchNode {
  const trimmed = phrase.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (WHOLE_PHONE.test(trimmed) && digits.length >= PHONE_DIGITS) return { kind: 'phone', raw: trimmed, digits };
  return { kind: 'text', text: phrase };
}

const WHOLE_PHONE = /^\+?\(?\d[\d\s().-]*\d$/;

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/**
 * How many terms `query` holds, for what an operation costs (src/schema/limits.ts) before any
 * of it runs; 0 for a query the parser refuses, which never reaches the database.
 */
export function countSearchTerms(query: string): number {
  if (query.length > SEARCH_LIMITS.length) return 0;
  try {
    return tokenize(query).filter((t) => t.type === 'term').length;
  } catch (error) {
    if (error instanceof Invalid) return 0;
    throw error;
  }
}

/**
 * The query as a tree, or null when it holds no term (blank). Refuses, naming the place, a quote
 * never closed, a parenthesis unbalanced, an OR or NOT with nothing beside it, and a query over
 * the limits.
 */
export function parseSearch(query: string): SearchNode | null {
  if (query.length > SEARCH_LIMITS.length) refuse(`a query is at most ${SEARCH_LIMITS.length} characters`);
  const tokens = tokenize(query);
  const terms = tokens.filter((t) => t.type === 'term').length;
  if (terms > SEARCH_LIMITS.terms) refuse(`a query has at most ${SEARCH_LIMITS.terms} terms (this one has ${terms})`);
  let at = 0;
  const peek = () => tokens[at];

  const conjunction = (depth: number): SearchNode | null => {
    if (depth > SEARCH_LIMITS.depth) refuse(`parentheses nest at most ${SEARCH_LIMITS.depth} deep`);
    const items: SearchNode[] = [];
    while (at < tokens.length && peek().type !== 'close') {
      if (peek().type === 'and') {
        if (items.length === 0) refuse('AND needs a term before it');
        at++;
        if (at >= tokens.length || peek().type === 'close') refuse('AND needs a term after it');
        continue;
      }
      items.push(disjunction(depth));
    }
    if (items.length === 0) return null;
    return items.length === 1 ? items[0] : { kind: 'and', items };
  };

  const disjunction = (depth: number): SearchNode => {
    const items = [unary(depth)];
    while (at < tokens.length && peek().type === 'or') {
      at++;
      if (at >= tokens.length || ['close', 'or', 'and'].includes(peek().type)) refuse('OR needs a term after it');
      items.push(unary(depth));
    }
    return items.length === 1 ? items[0] : { kind: 'or', items };
  };

  const unary = (depth: number): SearchNode => {
    const token = peek();
    if (token.type === 'or') refuse('OR needs a term before it');
    if (token.type === 'not') {
      at++;
      if (at >= tokens.length || ['close', 'or', 'and'].includes(peek().type)) refuse('NOT needs a term after it');
      return { kind: 'not', item: unary(depth) };
    }
    if (token.type === 'open') {
      at++;
      const inner = conjunction(depth + 1);
      if (at >= tokens.length) refuse('a parenthesis is opened and never closed');
      at++; // the close
      if (!inner) refuse('empty parentheses');
      return inner;
    }
    if (token.type === 'term') {
      at++;
      return token.negated ? { kind: 'not', item: token.node } : token.node;
    }
    refuse('a parenthesis is closed that was never opened');
  };

  const tree = conjunction(0);
  if (at < tokens.length) refuse('a parenthesis is closed that was never opened');
  return tree;
}
