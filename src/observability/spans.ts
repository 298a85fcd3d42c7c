// Work run inside a span, shared by the request spans (telemetry.ts) and the read
// statement spans (db/database.ts), which sit on floors that must not import each other.
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/** Marks the span failed with a type only: an error's message may quote the request's values. */
export function markSpanFailed(span: Span, type: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `work`, marking the span failed when it throws (and rethrowing); the span ends either way. */
export async function withinSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    markSpanFailed(span, error instanceof Error ? error.constructor.name : 'unknown');
    throw error;
  } finally {
    span.end();
  }
}
