// Step 6: the request scope (observability/requestScope.ts) that every later step, the door and
// the layers below read: the request id for log lines, the door, and the actor once known.
import { inRequestScope } from '../../observability/requestScope.ts';
import type { Step } from '../step.ts';

export const scopeStep: Step = ({ door, request }, next) => inRequestScope({ requestId: request.requestId, door: door.name }, next);
