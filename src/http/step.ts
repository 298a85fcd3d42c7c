// The one signature of the pipeline's steps (pipeline.ts): the exchange, and `next`, the steps
// after this one and then the door.
import type http from 'node:http';
import type { Door, DoorRequest, DoorResponse } from './door.ts';

export interface Exchange {
  readonly door: Door;
  readonly incoming: http.IncomingMessage;
  readonly outgoing: http.ServerResponse;
  /** What the door gets: its body is empty until the body step has read it, its `auth` unset until the guard has run. */
  request: DoorRequest;
}

export type Step = (exchange: Exchange, next: () => Promise<DoorResponse>) => Promise<DoorResponse>;
