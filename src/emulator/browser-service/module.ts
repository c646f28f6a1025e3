/** The browser service's routes, mounted under `/api/v2/browser`. */
import { BROWSER_API_PATH } from '../../http/index.js';
import type { RouteModule } from '../server/router.js';
import { configurationRoutes } from './configurations.js';
import type { BrowserServiceContext } from './context.js';
import { locationRoutes } from './locations.js';
import { profileRoutes } from './profiles.js';
import { proxyOptionRoutes } from './proxy-options.js';
import { recordingRoutes } from './recordings.js';
import { sessionRoutes } from './sessions.js';
import { sessionsAsyncRoutes } from './sessions-async.js';
import { toolRoutes } from './tools.js';

export function browserServiceModule(ctx: BrowserServiceContext): RouteModule {
  return {
    prefix: BROWSER_API_PATH,
    register(routes) {
      for (const group of [
        proxyOptionRoutes,
        locationRoutes,
        configurationRoutes,
        sessionRoutes,
        sessionsAsyncRoutes,
        recordingRoutes,
        toolRoutes,
        profileRoutes,
      ]) {
        group(ctx)(routes);
      }
    },
  };
}
