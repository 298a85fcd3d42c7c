import type { Route } from '../../routeTable.ts';

/** Every v2.2 route, in match order. */
export const restRoutes: Route[] = [];
