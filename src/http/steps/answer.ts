// Step 2: writes the answer the steps below made, then counts it and logs it, each under the
// route template the door names (unmatched paths share one label, so a scanner cannot grow
// the label set). A streamed answer is counted once it has ended.
import type { Logger } from '../../observability/logger.ts';
import type { Metrics } from '../../observability/metrics.ts';
import type { Step } from '../step.ts';
import { send } from '../send.ts';

export function answerStep(metrics: Metrics, logger: Logger): Step {
  return async (exchange, next) => {
    const started = performance.now();
    const response = await next();
    const { door, request } = exchange;
    const sent = await send(exchange.outgoing, response);
    if (sent.ended === 'failed') {
      logger.error('streamed answer failed after its head was sent; connection cut', { door: door.name, requestId: request.requestId, path: request.url.pathname, error: sent.error });
    }
    const seconds = (performance.now() - started) / 1000;
    const route = door.routeOf(request) ?? 'unmatched';
    metrics.observeRequest({ door: door.name, route, method: request.method, status: response.status }, seconds);
    const ended = sent.ended === 'whole' ? {} : { ended: sent.ended };
    logger.info('request', { requestId: request.requestId, door: door.name, method: request.method, route, status: response.status, ms: Math.round(seconds * 1000), ...ended });
    return response;
  };
}
