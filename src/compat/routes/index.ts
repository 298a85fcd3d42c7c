import type { Route } from '../../routeTable.ts';

/** Every compatibility route (paths relative to /api/v1/warehouse), in match order. */
export const compatRoutes: Route[] = [];
