// Step 5: a failure thrown by a later step or the door, answered in the door's format. An
// unavailable database (say, while authenticating) is a 503 to retry; input whose bytes the
// database refused, which the input check should have stopped, is still the caller's 400;
// anything else a 500, logged with what it was.
import { databaseFailure } from '../../db/failures.ts';
import type { Logger } from '../../observability/logger.ts';
import { retryAfter } from '../door.ts';
import type { Step } from '../step.ts';

export function failuresStep(logger: Logger): Step {
  return async ({ door, request }, next) => {
    try {
      return await next();
    } catch (error) {
      const context = { door: door.name, requestId: request.requestId, path: request.url.pathname, error };
      const failure = databaseFailure(error);
      if (failure === 'unavailable') {
        logger.warn('database unavailable', context);
        const rejected = door.reject(503, 'the database is unavailable; retry shortly', request);
        return { ...rejected, headers: { ...retryAfter(503), ...rejected.headers } };
      }
      if (failure === 'input') {
        logger.warn('database refused the input', context);
        return door.reject(400, 'the request holds text the database cannot store (such as U+0000) or is nested too deeply', request);
      }
      logger.error('unhandled error in door', context);
      return door.reject(500, 'internal error', request);
    }
  };
}
