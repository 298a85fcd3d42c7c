// The services every operation of the process shares, made from the configuration once, here
// at the composition root, and handed to each context: no module holds them as state of its own.
import { execute } from 'graphql';
import { PortalLinks } from '../auth/shopper.ts';
import type { Config } from '../config.ts';
import { systemLookup } from '../domain/webhooks.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/telemetry.ts';
import type { ContextServices } from '../schema/context.ts';
import { CursorSigner } from '../schema/cursors.ts';
import { createReadPlanner } from '../schema/planned.ts';

export function contextServices(
  config: Pick<Config, 'cursorSecret' | 'webhooksAllowLoopback'>,
  tracing?: Tracing,
  metrics?: Pick<Metrics, 'readPath'>,
): ContextServices {
  const planner = createReadPlanner(metrics?.readPath);
  const planned = ((args) => planner.execute(args, execute)) as typeof execute;
  return {
    cursors: new CursorSigner(config.cursorSecret),
    portalLinks: new PortalLinks(config.cursorSecret),
    // Traced around the planner, so an operation's span covers whichever path it took.
    execute: tracing ? tracing.traced(planned) : planned,
    planner,
    webhookAddressPolicy: { allowLoopback: config.webhooksAllowLoopback, lookup: systemLookup },
  };
}
