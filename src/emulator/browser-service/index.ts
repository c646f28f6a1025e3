export type { BrowserService, BrowserServiceDeps } from './service.js';
export { createBrowserService } from './service.js';
