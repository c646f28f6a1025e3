/** `GET /proxy/options`: the vocabulary, straight from `vocabulary.ts`. */

import { LOCATION_LEVELS } from '../../browser-api/schemas/locations.js';
import { ProxyOptionsSchema } from '../../browser-api/schemas/proxy.js';
import type { RouteRegistrar } from '../server/router.js';
import { data } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import {
  CONNECTION_TYPES,
  FILTER_LEVELS,
  FILTER_MODES,
  PROTOCOLS,
  SESSION_TYPES,
} from './vocabulary.js';

export const proxyOptions = () => ({
  connection_types: [...CONNECTION_TYPES],
  session_types: [...SESSION_TYPES],
  protocols: [...PROTOCOLS],
  filter_modes: [...FILTER_MODES],
  filter_levels: FILTER_LEVELS,
  quality_filter: {
    deprecated: true,
    default: true,
    description: 'true equals filter_mode "quality", false equals "none"; use filter_mode',
  },
  location_levels: [...LOCATION_LEVELS],
});

export function registerProxyOptionRoutes(
  routes: RouteRegistrar,
  ctx: BrowserServiceContext,
): void {
  routes.add('GET', '/proxy/options', ({ req }) => {
    authenticate(ctx, req);
    return data(ProxyOptionsSchema, proxyOptions());
  });
}
