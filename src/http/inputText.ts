// The one check every door runs on what a client sends, before anything reads it
// further: no string (member name or value, path segment, query value, GraphQL literal)
// may hold U+0000 or a lone UTF-16 surrogate, which PostgreSQL cannot store as text and
// which no client means to send, and no JSON value may nest deeper than any request of
// this service needs. The walk is iterative, so a hostile depth cannot overflow the stack.

/** Deeper than any documented request body (the deepest is about 6). */
export const MAX_INPUT_DEPTH = 32;

export interface InputIssue {
  /** Dotted path of the member (`lineItems.0.productId`), or the parameter's name. */
  path: string;
  message: string;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be accepted, or undefined when it can. */
export function badText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it holds a lone UTF-16 surrogate)';
  return undefined;
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/** The first string in `value` that `badText` refuses, or the first member nested deeper than MAX_INPUT_DEPTH. */
export function badInput(value: unknown, root = ''): InputIssue | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, path, depth } = pending.pop()!;
    if (typeof current === 'string') {
      const message = badText(current);
      if (message) return { path, message };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) return { path, message: `is nested deeper than ${MAX_INPUT_DEPTH} levels` };
    const entries = Array.isArray(current) ? current.entries() : Object.entries(current);
    for (const [key, item] of entries) {
      const memberPath = join(path, key);
      if (typeof key === 'string') {
        const message = badText(key);
        if (message) return { path: memberPath, message: `member name ${message}` };
      }
      pending.push({ value: item, path: memberPath, depth: depth + 1 });
    }
  }
  return undefined;
}

/** The first path parameter or query value `badText` refuses, named as the client named it. */
export function badParameters(params: Record<string, string>, query: URLSearchParams): InputIssue | undefined {
  for (const [name, value] of Object.entries(params)) {
    const message = badText(value);
    if (message) return { path: name, message };
  }
  for (const [name, value] of query) {
    const message = badText(name) ?? badText(value);
    if (message) return { path: name, message };
  }
  return undefined;
}
