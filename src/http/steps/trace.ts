// Step 1 (when traces are exported): the request's server span, named by its route once the
// door has named one. A caller's `traceparent` continues the caller's trace.
import type { Tracer } from '@opentelemetry/api';
import type { DoorResponse } from '../door.ts';
import { inRequestSpan } from '../../observability/telemetry.ts';
import type { Step } from '../step.ts';

export function traceStep(tracer: Tracer): Step {
  return async (exchange, next) => {
    const { door, request } = exchange;
    let response: DoorResponse | undefined;
    await inRequestSpan(tracer, { method: request.method, door: door.name, requestId: request.requestId, headers: request.headers }, async () => {
      response = await next();
      return { status: response.status, route: door.routeOf(exchange.request) };
    });
    return response!;
  };
}
