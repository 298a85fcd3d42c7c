import type { Route } from '../../http/routeTable.ts';
import { compatReturnRoutes } from './returns.ts';

/** Every compatibility route (paths relative to /api/v1/warehouse), in match order. */
export const compatRoutes: Route[] = [...compatReturnRoutes];
