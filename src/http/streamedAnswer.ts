// Answers whose size the client decides (every return of a window, a report, an export),
// written while they are read: a JSON array or CSV made page by page, each page read only
// when the client has taken the one before (the server writes with backpressure), so
// memory holds about one page however big the answer, and other requests are served
// between pages.
import type { DoorResponse } from './door.ts';
import type { OperationOutcome } from '../schema/execute.ts';

/** How items are laid out: `open` before the first, `separator` between two, `close` after the last. */
export interface AnswerLayout<T> {
  contentType: string;
  open: string;
  separator: string;
  close: string;
  item(value: T): string;
}

/** A JSON array of `map(value)`. */
export function jsonArray<T>(map: (value: T) => unknown): AnswerLayout<T> {
  return { contentType: 'application/json; charset=utf-8', open: '[', separator: ',', close: ']', item: (value) => JSON.stringify(map(value)) };
}

type Failure<T> = Extract<OperationOutcome<T>, { ok: false }>;

/**
 * A 200 answer of every item the pages hold. The first page is read now, before anything is
 * sent, so a failure found there (bad input, an unknown store ...) is still the door's own
 * error answer (`refused`). A later page that fails throws, and the server cuts the connection:
 * the head is out by then. When the server stops asking for chunks (the client left), the pages
 * are closed and none is read after the one in flight.
 */
export async function streamedAnswer<T>(
  pages: AsyncGenerator<OperationOutcome<T[]>, void>,
  answer: { layout: AnswerLayout<T>; headers?: Record<string, string>; refused: (failure: Failure<T[]>) => DoorResponse },
): Promise<DoorResponse> {
  const first = await pages.next();
  if (!first.done && !first.value.ok) {
    await pages.return();
    return answer.refused(first.value);
  }
  return { status: 200, headers: { 'content-type': answer.layout.contentType, ...answer.headers }, stream: chunks(first, pages, answer.layout) };
}

/** One chunk per page: its items laid out, the opening before the first and the closing after the last. */
async function* chunks<T>(
  first: IteratorResult<OperationOutcome<T[]>, void>,
  pages: AsyncGenerator<OperationOutcome<T[]>, void>,
  layout: AnswerLayout<T>,
): AsyncGenerator<string, void> {
  try {
    let chunk = layout.open;
    let count = 0;
    for (let page = first; !page.done; page = await pages.next()) {
      if (!page.value.ok) {
        const { code, message, cause } = page.value.error;
        throw new Error(`a page after the first failed: ${code} ${message}`, { cause });
      }
      for (const item of page.value.data) chunk += (count++ === 0 ? '' : layout.separator) + layout.item(item);
      yield chunk;
      chunk = '';
    }
    yield chunk + layout.close;
  } finally {
    await pages.return();
  }
}
